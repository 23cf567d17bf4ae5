from django.urls import path

from compliance.games import views

app_name = "games"

urlpatterns = [
    path("", views.GameListView.as_view(), name="list"),
    path("<slug:slug>/", views.GameView.as_view(), name="game"),
    path("<slug:slug>/figures.csv", views.GameCsvView.as_view(), name="csv"),
    path("<slug:slug>/figures.xlsx", views.GameXlsxView.as_view(), name="xlsx"),
    path("<slug:slug>/figures.pdf", views.GamePdfView.as_view(), name="pdf"),
]
