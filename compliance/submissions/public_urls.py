"""The public gaming guide pages (§ 521.9(f)): no sign-in."""

from django.urls import path

from compliance.submissions import views_guides

app_name = "guides"
urlpatterns = [
    path("", views_guides.PublicGuidesView.as_view(), name="index"),
    path("<slug:code>/", views_guides.PublicGuidesView.as_view(), name="facility"),
    path("<slug:code>/<slug:game>.pdf", views_guides.PublicGuidePdfView.as_view(), name="pdf"),
]
