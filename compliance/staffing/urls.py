from django.urls import path

from compliance.reports.views import ReportMoved
from compliance.staffing import views

app_name = "staffing"
urlpatterns = [
    path("", views.FloorView.as_view(), name="floor"),
    path("rosters/", views.RosterListView.as_view(), name="rosters"),
    path("rosters/<int:pk>/", views.RosterView.as_view(), name="roster"),
    path("rosters/<int:pk>/pit/", views.RosterPitView.as_view(), name="roster-pit"),
    path("rosters/<int:pk>/assignments/<int:assignment_pk>/end/", views.AssignmentEndView.as_view(),
         name="assignment-end"),
    path("shifts/", views.ShiftCreateView.as_view(), name="shift-create"),
    path("cameras/", views.SurveillanceView.as_view(), name="surveillance"),
    path("cameras/<int:pk>/out/", views.CameraOutView.as_view(), name="camera-out"),
    path("cameras/<int:pk>/back/", views.CameraBackView.as_view(), name="camera-back"),
    path("tables/<int:table_pk>/override/", views.OverrideCreateView.as_view(), name="override"),
    path("overrides/<int:pk>/", views.OverrideDetailView.as_view(), name="override-detail"),
    # The report of violations and overrides moved onto the report framework (compliance.reports, "staffing").
    path("report/", ReportMoved.as_view(kind="staffing"), name="report"),
    path("report.csv", ReportMoved.as_view(kind="staffing"), name="report-csv"),
    path("report.pdf", ReportMoved.as_view(kind="staffing"), name="report-pdf"),
]
