from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "compliance.providers"
    label = "providers"
    verbose_name = "Gaming related gaming service providers"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.providers.panels import providers_panel

        register_panel(providers_panel)
