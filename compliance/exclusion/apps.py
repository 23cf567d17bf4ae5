from compliance import registry
from compliance.registry import NavItem
from compliance.roles import Role


class ExclusionConfig(registry.PluggableApp):
    """The Board's exclusion lists and the screening of mailings, § 525.21(q)(7) (docs/exclusion.md)."""

    name = "compliance.exclusion"
    label = "exclusion"
    verbose_name = "Exclusion-list screening"

    navigation = (
        NavItem("Exclusion lists", "exclusion:lists", "Compliance",
                frozenset({Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})),
        NavItem("Exclusion review", "exclusion:queue", "Compliance"),
    )
    panels = ("compliance.exclusion.panels.exclusion_panel",)
