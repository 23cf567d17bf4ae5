from django.apps import AppConfig


class StaffingConfig(AppConfig):
    name = "compliance.staffing"
    label = "staffing"
    verbose_name = "Staffing and surveillance"

    def ready(self) -> None:
        from compliance.reference import REFERENCE_SEEDERS
        from compliance.staffing.reference import seed_staffing_rules

        if seed_staffing_rules not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_staffing_rules)
