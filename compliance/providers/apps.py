from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import NavItem, ReadinessSource
from compliance.roles import OVERSIGHT


class ProvidersConfig(registry.PluggableApp):
    """Gaming related gaming service providers, ch. 528 (docs/providers.md)."""

    name = "compliance.providers"
    label = "providers"
    verbose_name = "Gaming related gaming service providers"

    depends_on = ("compliance.newgames", "compliance.games")
    navigation = (NavItem("Service providers", "providers:list", "Rules", OVERSIGHT),)
    panels = ("compliance.providers.panels.providers_panel",)
    # § 528.7 at every table: the writes that change the answer (time alone lapses a certification too).
    readiness = (ReadinessSource("providers", "compliance.providers.readiness.provider_unmet", models=(
        "providers.TableOffering", "providers.ProviderOffering", "providers.Certification",
        "providers.BusinessPermission", "providers.OfferingApproval")),)
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # Reminders to renew a certification at 90, 75 and 61 days before its expiry and on the day a renewal
        # becomes late (§ 528.4(b)); once each (a unique reminder row), so hourly is harmless.
        "providers-renewal-reminders": {"task": "compliance.providers.tasks.send_renewal_reminders",
                                        "schedule": crontab(minute=15)},
    }
