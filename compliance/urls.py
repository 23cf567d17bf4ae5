from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from compliance import health, views, views_accounts, views_chain, views_media

urlpatterns = [
    # First: the tables' scanners call it hundreds of times a second, and Django tries the patterns in order
    # (resolving it 38th cost a scan 3 % of its CPU, docs/scale.md, "Thirteenth session"). No other pattern
    # begins with "api/v1/coupons/", so the order changes nothing else.
    path("api/v1/coupons/", include("coupons.api.urls")),
    path("", views.DashboardView.as_view(), name="dashboard"),
    # Answered by compliance.health.HealthMiddleware before any other middleware; named here for reverse().
    path("healthz", login_not_required(health.healthz), name="healthz"),
    path("readyz", login_not_required(health.readyz), name="readyz"),
    path("accounts/login/", views_accounts.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/second-factor/", views_accounts.SecondFactorView.as_view(), name="account-second-factor"),
    path("accounts/backup-codes/", views_accounts.BackupCodesView.as_view(), name="account-backup-codes"),
    path("accounts/password/", views_accounts.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", views_accounts.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/set-password/<uidb64>/<token>/", views_accounts.PasswordSetView.as_view(), name="password-set"),
    path("facility/select/", views.FacilitySelectView.as_view(), name="facility-select"),
    path("sign/<int:content_type_id>/<int:object_id>/<slug:slot>/", views.SignView.as_view(), name="sign"),
    path("signatures/", views.SignatureListView.as_view(), name="signature-list"),
    path("signatures/<int:pk>/", views.SignatureDetailView.as_view(), name="signature-detail"),
    path("audit/", views.AuditListView.as_view(), name="audit-list"),
    path("audit/export.csv", views.AuditCsvView.as_view(), name="audit-csv"),
    path("audit/export.xlsx", views.AuditXlsxView.as_view(), name="audit-xlsx"),
    path("audit/chain/", views_chain.ChainStatusView.as_view(), name="chain-status"),
    path("audit/chain/anchors/<int:pk>.json", views_chain.AnchorJsonView.as_view(), name="chain-anchor-json"),
    path("audit/evidence/", views_chain.EvidenceView.as_view(), name="evidence"),
    path("audit/evidence/bundle.zip", views_chain.EvidenceBundleView.as_view(), name="evidence-bundle"),
    path("audit/evidence/verify_bundle.py", views_chain.VerifierView.as_view(), name="evidence-verifier"),
    path("regulations/", views.RegulationListView.as_view(), name="regulation-list"),
    path("tables/", views.TableListView.as_view(), name="table-list"),
    path("media/<path:name>", views_media.media_file, name="media"),
    path("people/", views.PeopleListView.as_view(), name="people-list"),
    path("coupons/", include("coupons.urls")),
    path("equipment/", include("equipment.urls")),
    path("exclusion/", include("compliance.exclusion.urls")),
    path("staffing/", include("compliance.staffing.urls")),
    path("reports/", include("compliance.reports.urls")),
    path("games/", include("compliance.games.urls")),
    path("providers/", include("compliance.providers.urls")),
    path("submissions/", include("compliance.submissions.urls")),
    path("guides/", include("compliance.submissions.public_urls")),
    path("game-requests/", include("compliance.newgames.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    # The admin's own "change password" page is the person's own page, which locks and audits like signing.
    path("admin/password_change/", RedirectView.as_view(pattern_name="password_change"), name="admin-password-change"),
    path("admin/", admin.site.urls),
]
