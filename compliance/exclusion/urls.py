from django.urls import URLPattern, path

from compliance.exclusion import views

app_name = "exclusion"
urlpatterns: list[URLPattern] = [
    path("", views.ListsView.as_view(), name="lists"),
    path("lists/import/", views.ListImportView.as_view(), name="import"),
    path("lists/<int:pk>/", views.ListDetailView.as_view(), name="list-detail"),
    path("runs/", views.RunListView.as_view(), name="runs"),
    path("runs/<int:pk>/", views.RunDetailView.as_view(), name="run-detail"),
    path("review/", views.QueueView.as_view(), name="queue"),
    path("matches/<int:pk>/", views.MatchDecideView.as_view(), name="match-decide"),
]
