from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ReadinessSource, ScaleSeeder
from compliance.roles import FLOOR_SUPERVISION, OVERSIGHT, Role


class StaffingConfig(registry.PluggableApp):
    """Rosters, cameras and the staffing and surveillance rules as data, § 577.9 (docs/staffing.md)."""

    name = "compliance.staffing"
    label = "staffing"
    verbose_name = "Staffing and surveillance"

    depends_on = ("compliance.reports",)
    navigation = (
        NavItem("Staffing", "staffing:floor", "Floor", FLOOR_SUPERVISION | OVERSIGHT),
        NavItem("Rosters", "staffing:rosters", "Floor", FLOOR_SUPERVISION),
        NavItem("Cameras", "staffing:surveillance", "Floor",
                frozenset({Role.SURVEILLANCE, Role.SHIFT_MANAGER}) | OVERSIGHT),
        NavItem("Staffing report", "staffing:report", "Floor", frozenset({Role.SHIFT_MANAGER}) | OVERSIGHT),
    )
    panels = ("compliance.staffing.panels.staffing_panel",)
    demo = (DemoSeeder("compliance.staffing.demo.staffing_demo_seed", stage=2),)
    # rosters (generate_casino), written beside the coupons
    scale = (ScaleSeeder("compliance.staffing.scale.staffing_scale_seed", stage=2, beside=True),)
    report_kinds = ("compliance.staffing.report_kinds",)
    # The violation periods start and end with the table's opening and closing.
    table_listeners = ("compliance.staffing.services.staffing_table_changed",)
    readiness = (ReadinessSource("staffing", "compliance.staffing.readiness.staffing_unmet", models=(
        "staffing.Assignment", "staffing.Camera", "staffing.CameraCoverage", "staffing.CameraOutage",
        "staffing.CameraRule", "staffing.SpanRule", "staffing.StaffingRule")),)
    override_consumers = ("compliance.staffing.readiness.staffing_override_consumer",)
    floorperson_readers = ("compliance.staffing.selectors.floorpersons_over",)
    reference_data = ("compliance.staffing.reference.seed_staffing_rules",)
