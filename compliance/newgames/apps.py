from django.apps import AppConfig


class NewGamesConfig(AppConfig):
    name = "compliance.newgames"
    label = "newgames"
    verbose_name = "Requests to offer a new table game or feature"
