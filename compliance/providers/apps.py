from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "compliance.providers"
    label = "providers"
    verbose_name = "Gaming related gaming service providers"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.providers.models import (
            BusinessPermission,
            Certification,
            OfferingApproval,
            ProviderOffering,
            TableOffering,
        )
        from compliance.providers.panels import providers_panel
        from compliance.providers.readiness import provider_unmet
        from compliance.readiness import register_source

        register_panel(providers_panel)
        # § 528.7 at every table: the writes that change the answer (time alone lapses a certification too)
        register_source("providers", provider_unmet, models=(TableOffering, ProviderOffering, Certification,
                                                             BusinessPermission, OfferingApproval))
