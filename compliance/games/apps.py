from compliance import registry
from compliance.registry import NavItem
from compliance.roles import OVERSIGHT


class GamesConfig(registry.PluggableApp):
    """The game catalogue and exact game math (docs/games.md)."""

    name = "compliance.games"
    label = "games"
    verbose_name = "Game catalogue and math"

    navigation = (NavItem("Game math", "games:list", "Rules", OVERSIGHT),)
