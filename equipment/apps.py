from django.apps import AppConfig


class EquipmentConfig(AppConfig):
    name = "equipment"
    verbose_name = "Equipment logs"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.reference import REFERENCE_SEEDERS
        from equipment.panels import equipment_panel
        from equipment.reference import seed_equipment_requirements

        register_panel(equipment_panel)
        if seed_equipment_requirements not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_equipment_requirements)
