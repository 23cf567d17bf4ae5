from django.urls import path

from compliance.reports.views import ReportMoved
from equipment import views, views_approvals

app_name = "equipment"
urlpatterns = [
    path("", views.BoardView.as_view(), name="board"),
    path("board/rows/", views.BoardFragmentView.as_view(), name="board-rows"),
    path("tables/<int:table_pk>/", views.TableDetailView.as_view(), name="table"),
    path("tables/<int:table_pk>/open/", views.TableOpenView.as_view(), name="table-open"),
    path("tables/<int:table_pk>/close/", views.TableCloseView.as_view(), name="table-close"),
    path("tables/<int:table_pk>/dice/", views.DiceChangeView.as_view(), name="dice-change"),
    path("tables/<int:table_pk>/decks/", views.DeckChangeView.as_view(), name="deck-change"),
    path("tables/<int:table_pk>/inspection/", views.InspectionCreateView.as_view(), name="inspection-create"),
    path("tables/<int:table_pk>/malfunction/", views.MalfunctionCreateView.as_view(), name="malfunction-create"),
    path(
        "tables/<int:table_pk>/malfunctions/<int:pk>/back-in-service/",
        views.BackInServiceView.as_view(),
        name="back-in-service",
    ),
    path("tables/<int:table_pk>/dice-method/", views.DiceMethodView.as_view(), name="dice-method"),
    path("dice/", views.DiceLogView.as_view(), name="dice-log"),
    path("dice/<int:pk>/", views.DiceDetailView.as_view(), name="dice-detail"),
    path("decks/", views.DeckLogView.as_view(), name="deck-log"),
    path("decks/<int:pk>/", views.DeckDetailView.as_view(), name="deck-detail"),
    path("inspections/<int:pk>/", views.InspectionDetailView.as_view(), name="inspection-detail"),
    path("malfunctions/<int:pk>/", views.MalfunctionDetailView.as_view(), name="malfunction-detail"),
    path("alerts/", views.AlertListView.as_view(), name="alerts"),
    path("requirements/", views.RequirementListView.as_view(), name="requirements"),
    path("approvals/", views_approvals.ApprovalRegisterView.as_view(), name="approvals"),
    path("approvals/withdraw/", views_approvals.ApprovalWithdrawView.as_view(), name="approval-withdraw"),
    # The equipment report moved onto the report framework (compliance.reports, kind "equipment").
    path("report/", ReportMoved.as_view(kind="equipment"), name="report"),
    path("report.csv", ReportMoved.as_view(kind="equipment"), name="report-csv"),
    path("report.pdf", ReportMoved.as_view(kind="equipment"), name="report-pdf"),
]
