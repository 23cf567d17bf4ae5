from django.apps import AppConfig


class EquipmentConfig(AppConfig):
    name = "equipment"
    verbose_name = "Equipment logs"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.readiness import register_source
        from compliance.reference import REFERENCE_SEEDERS
        from equipment import models
        from equipment.panels import equipment_panel
        from equipment.readiness import equipment_unmet
        from equipment.reference import seed_equipment_requirements

        register_panel(equipment_panel)
        register_source("equipment", equipment_unmet, models=(
            models.DiceSet, models.DeckSet, models.TableSession, models.OpeningInspection, models.Malfunction,
            models.DeviceBackInService, models.TableDiceMethod, models.EquipmentApproval, models.ApprovalWithdrawal,
            models.EquipmentRequirement))
        if seed_equipment_requirements not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seed_equipment_requirements)
