from django.urls import path

from compliance.newgames import views

app_name = "newgames"
urlpatterns = [
    path("", views.RequestListView.as_view(), name="list"),
    path("new/", views.EngineChoiceView.as_view(), name="engine"),
    # Before the engine's games: "own-figures" is no game of the engine.
    path("new/own-figures/", views.StatedRequestCreateView.as_view(), name="create-stated"),
    path("new/<slug:engine>/", views.RequestCreateView.as_view(), name="create"),
    path("<int:pk>/", views.RequestDetailView.as_view(), name="detail"),
    path("<int:pk>/pictures/new/", views.PictureUploadView.as_view(), name="pictures"),
    path("<int:pk>/pictures/<int:picture>/", views.PictureView.as_view(), name="picture"),
    path("<int:pk>/sign/", views.RequestSignView.as_view(), name="sign"),
    path("<int:pk>/request.pdf", views.RequestPdfView.as_view(), name="pdf"),
]
