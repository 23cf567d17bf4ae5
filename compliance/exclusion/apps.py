from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ScaleSeeder
from compliance.roles import MARKETING, OVERSIGHT


class ExclusionConfig(registry.PluggableApp):
    """The Board's exclusion lists and the screening of mailings, § 525.21(q)(7) (docs/exclusion.md)."""

    name = "compliance.exclusion"
    label = "exclusion"
    verbose_name = "Exclusion-list screening"

    navigation = (
        NavItem("Exclusion lists", "exclusion:lists", "Coupons", OVERSIGHT),
        NavItem("Exclusion review", "exclusion:queue", "Coupons", OVERSIGHT),
        NavItem("Screening runs", "exclusion:runs", "Coupons", OVERSIGHT | MARKETING),
    )
    panels = ("compliance.exclusion.panels.exclusion_panel",)
    demo = (DemoSeeder("compliance.exclusion.demo.exclusion_demo_seed", stage=1),)  # the Board's lists, imported
    # A year of the Board's lists, imported each quarter (generate_casino)
    scale = (ScaleSeeder("compliance.exclusion.scale.exclusion_scale_seed", stage=1),)
