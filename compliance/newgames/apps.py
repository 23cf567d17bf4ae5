from compliance import registry
from compliance.registry import NavItem
from compliance.roles import OVERSIGHT


class NewGamesConfig(registry.PluggableApp):
    """Requests to offer a new table game or feature, § 521.4 (docs/newgames.md)."""

    name = "compliance.newgames"
    label = "newgames"
    verbose_name = "Requests to offer a new table game or feature"

    depends_on = ("compliance.games",)
    navigation = (NavItem("New game requests", "newgames:list", "Rules", OVERSIGHT),)
