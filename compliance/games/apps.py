from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "compliance.games"
    label = "games"
    verbose_name = "Game catalogue and math"
