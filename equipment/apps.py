from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ReadinessSource, ScaleSeeder
from compliance.roles import FLOOR_SUPERVISION, OVERSIGHT, Role


class EquipmentConfig(registry.PluggableApp):
    """Dice and deck logs, opening inspections, malfunctions, clocks and alerts (docs/equipment.md)."""

    name = "equipment"
    verbose_name = "Equipment logs"

    depends_on = ("compliance.reports",)
    navigation = (
        NavItem("Table board", "equipment:board", "Floor",
                FLOOR_SUPERVISION | frozenset({Role.SURVEILLANCE}) | OVERSIGHT),
        NavItem("Dice log", "equipment:dice-log", "Equipment", FLOOR_SUPERVISION | OVERSIGHT),
        NavItem("Deck log", "equipment:deck-log", "Equipment", FLOOR_SUPERVISION | OVERSIGHT),
        NavItem("Equipment alerts", "equipment:alerts", "Equipment",
                FLOOR_SUPERVISION | frozenset({Role.SURVEILLANCE}) | OVERSIGHT),
        NavItem("Equipment report", "equipment:report", "Equipment", frozenset({Role.SHIFT_MANAGER}) | OVERSIGHT),
        NavItem("Equipment rules", "equipment:requirements", "Equipment",
                frozenset({Role.SHIFT_MANAGER, Role.ADMINISTRATOR}) | OVERSIGHT),
        NavItem("Approved equipment", "equipment:approvals", "Equipment", frozenset({Role.SHIFT_MANAGER}) | OVERSIGHT),
    )
    # The equipment's own panel, and every table's readiness (compliance.readiness) linked to the board.
    panels = ("equipment.panels.equipment_panel", "equipment.readiness_panel.readiness_panel")
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # Dice and deck clocks swept every minute, § 577.4(d), § 575.3(c).
        "equipment-sweep-clocks": {"task": "equipment.tasks.sweep_equipment_clocks", "schedule": crontab(minute="*")},
    }
    # The approvals, then the floor's morning: equipment in play, tables open, one clock overdue.
    demo = (DemoSeeder("equipment.demo.equipment_demo_seed", stage=3),
            DemoSeeder("equipment.demo.floor_demo_seed", stage=3))
    # a year of logs (generate_casino), written beside the coupons
    scale = (ScaleSeeder("equipment.scale.equipment_scale_seed", stage=3, beside=True),)
    report_kinds = ("equipment.report_kinds",)
    # Dice, cards, the opening inspection, the table's configuration and approved equipment.
    readiness = (ReadinessSource("equipment", "equipment.readiness.equipment_unmet", models=(
        "equipment.DiceSet", "equipment.DeckSet", "equipment.TableSession", "equipment.OpeningInspection",
        "equipment.Malfunction", "equipment.DeviceBackInService", "equipment.TableDiceMethod",
        "equipment.EquipmentApproval", "equipment.ApprovalWithdrawal", "equipment.EquipmentRequirement")),)
    reference_data = ("equipment.reference.seed_equipment_requirements",)
    administered = True
