from django.urls import path

from compliance.reports import views

app_name = "reports"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("runs/", views.RunListView.as_view(), name="runs"),
    path("runs/<int:pk>/", views.RunView.as_view(), name="run"),
    path("runs/<int:pk>/progress.json", views.RunProgressView.as_view(), name="run-progress"),
    path("runs/<int:pk>/files/<str:fmt>", views.FileView.as_view(), name="file"),
    path("runs/<int:pk>/retry/", views.RetryView.as_view(), name="run-retry"),
    path("runs/<int:pk>/filing/", views.FilingView.as_view(), name="run-filing"),
    path("<slug:kind>/", views.KindView.as_view(), name="kind"),
    path("<slug:kind>/produce/", views.ProduceView.as_view(), name="produce"),
]
