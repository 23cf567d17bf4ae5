from django.apps import AppConfig


class StaffingConfig(AppConfig):
    name = "compliance.staffing"
    label = "staffing"
    verbose_name = "Staffing and surveillance"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.opening_checks import register_opening_check, register_table_flagger, register_table_listener
        from compliance.reference import REFERENCE_SEEDERS
        from compliance.staffing.panels import staffing_flags, staffing_panel
        from compliance.staffing.reference import seed_staffing_rules
        from compliance.staffing.services import staffing_opening_check, staffing_table_changed

        register_panel(staffing_panel)
        register_opening_check(staffing_opening_check)
        register_table_listener(staffing_table_changed)
        register_table_flagger(staffing_flags)

        if seed_staffing_rules not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_staffing_rules)
