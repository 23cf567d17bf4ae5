from django.urls import path

from compliance.providers import views

app_name = "providers"
urlpatterns = [
    path("", views.ProviderListView.as_view(), name="list"),
    path("new/", views.ProviderCreateView.as_view(), name="create"),
    path("<int:pk>/", views.ProviderDetailView.as_view(), name="detail"),
    path("<int:pk>/offerings/new/", views.OfferingCreateView.as_view(), name="offering-create"),
    path("<int:pk>/certifications/new/", views.CertificationCreateView.as_view(), name="certification-create"),
    path("<int:pk>/permissions/new/", views.PermissionCreateView.as_view(), name="permission-create"),
    path("offerings/<int:pk>/lab-approval/", views.LabApprovalView.as_view(), name="offering-lab"),
    path("offerings/<int:pk>/use-approval/", views.UseApprovalView.as_view(), name="offering-approve"),
    path("certifications/<int:pk>/renewal/", views.RenewalFileView.as_view(), name="renewal-file"),
    path("certifications/<int:pk>/decision/", views.RenewalDecideView.as_view(), name="renewal-decide"),
    path("permissions/<int:pk>/rescind/", views.PermissionRescindView.as_view(), name="permission-rescind"),
    path("filings/new/", views.FilingCreateView.as_view(), name="filing-create"),
    path("filings/<int:pk>/document/", views.FilingDocumentView.as_view(), name="filing-document"),
    path("tables/", views.TableOfferingsView.as_view(), name="tables"),
    path("tables/assign/", views.AssignView.as_view(), name="assign"),
    path("tables/<int:pk>/remove/", views.RemoveView.as_view(), name="remove"),
]
