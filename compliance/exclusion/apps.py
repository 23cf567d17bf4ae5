from django.apps import AppConfig


class ExclusionConfig(AppConfig):
    name = "compliance.exclusion"
    label = "exclusion"
    verbose_name = "Exclusion-list screening"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.exclusion.panels import exclusion_panel

        register_panel(exclusion_panel)
