from django.urls import path

from compliance.submissions import views, views_guides, views_limits, views_signs

app_name = "submissions"
urlpatterns = [
    path("", views.SubmissionListView.as_view(), name="list"),
    path("new/", views.DraftView.as_view(), name="draft"),
    path("compare/", views.CompareView.as_view(), name="compare"),
    path("figures/<slug:game>.json", views.FiguresView.as_view(), name="figures"),
    path("<int:pk>/", views.SubmissionDetailView.as_view(), name="detail"),
    path("<int:pk>/submission.pdf", views.SubmissionPdfView.as_view(), name="pdf"),
    path("<int:pk>/games/<slug:game>/", views.GameRulesView.as_view(), name="game"),
    path("<int:pk>/games/<slug:game>/requirements/", views.RequirementsView.as_view(), name="requirements"),
    path("<int:pk>/file/", views.SubmitView.as_view(), name="submit"),
    path("<int:pk>/decision/", views.DecisionView.as_view(), name="decision"),
    path("tables/", views.TablesView.as_view(), name="tables"),
    path("tables/<int:pk>/settings/", views.TableSettingView.as_view(), name="table-setting"),
    path("tables/<int:pk>/payout-sign.pdf", views.PayoutSignView.as_view(), name="payout-sign"),
    path("tables/<int:pk>/limits-sign.pdf", views_signs.LimitsSignView.as_view(), name="limits-sign"),
    path("signs/", views_signs.SignApprovalsView.as_view(), name="signs"),
    path("signs/new/", views_signs.SignApprovalCreateView.as_view(), name="sign-approval-create"),
    path("complete-rules.pdf", views.PodiumView.as_view(), name="podium"),
    path("limits/", views_limits.LimitsView.as_view(), name="limits"),
    path("limits/tables/<int:pk>/change/", views_limits.LimitRequestView.as_view(), name="limit-request"),
    path("limits/<int:pk>/", views_limits.ChangeView.as_view(), name="limit-change"),
    path("limits/<int:pk>/sign.pdf", views_limits.LimitSignView.as_view(), name="limit-sign"),
    path("limits/<int:pk>/posted/", views_limits.PostView.as_view(), name="limit-post"),
    path("limits/<int:pk>/announced/", views_limits.AnnounceView.as_view(), name="limit-announce"),
    path("limits/<int:pk>/cancel/", views_limits.CancelView.as_view(), name="limit-cancel"),
    path("guides/", views_guides.GuidesView.as_view(), name="guides"),
    path("guides/new/", views_guides.GuideGenerateView.as_view(), name="guide-generate"),
    path("guides/<int:pk>/", views_guides.GuideView.as_view(), name="guide"),
    path("guides/<int:pk>/guide.pdf", views_guides.GuidePdfView.as_view(), name="guide-pdf"),
    path("guides/<int:pk>/send/", views_guides.GuideSubmitView.as_view(), name="guide-submit"),
    path("guides/<int:pk>/approval/", views_guides.GuideApprovalView.as_view(), name="guide-approval"),
]
