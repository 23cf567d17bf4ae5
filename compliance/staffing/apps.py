from django.apps import AppConfig


class StaffingConfig(AppConfig):
    name = "compliance.staffing"
    label = "staffing"
    verbose_name = "Staffing and surveillance"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.floor_assignments import register_floorperson_reader
        from compliance.opening_checks import register_table_listener
        from compliance.readiness import register_override_consumer, register_source
        from compliance.reference import REFERENCE_SEEDERS
        from compliance.staffing.models import (
            Assignment,
            Camera,
            CameraCoverage,
            CameraOutage,
            CameraRule,
            SpanRule,
            StaffingRule,
        )
        from compliance.staffing.panels import staffing_panel
        from compliance.staffing.readiness import staffing_override_consumer, staffing_unmet
        from compliance.staffing.reference import seed_staffing_rules
        from compliance.staffing.selectors import floorpersons_over
        from compliance.staffing.services import staffing_table_changed

        register_panel(staffing_panel)
        register_table_listener(staffing_table_changed)
        register_source("staffing", staffing_unmet, models=(Assignment, Camera, CameraCoverage, CameraOutage,
                                                            CameraRule, SpanRule, StaffingRule))
        register_override_consumer(staffing_override_consumer)
        register_floorperson_reader(floorpersons_over)

        if seed_staffing_rules not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_staffing_rules)
