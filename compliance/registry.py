"""The one plug-in contract: what an app adds to the system, declared in its own ``apps.py``.

Every app of this project is a :class:`PluggableApp` (an ``AppConfig``). It declares, as class attributes, what it
adds; the foundation reads the declarations and never names the app (NetBox's ``registry`` is the model):

============================  =====================================================================================
declaration                   what it is, and who reads it
============================  =====================================================================================
``depends_on``                the other apps of this project it may import (tests/test_architecture.py holds it)
``navigation``                :class:`NavItem` menu entries with the roles whose daily work they are
                              (``compliance.navigation``)
``panels``                    dashboard panel functions (``compliance.dashboard``)
``beat``                      Celery beat entries ``{name: {"task": ..., "schedule": ...}}`` (``compliance.celery``
                              hands :func:`beat_schedule` to beat when it starts; settings name no task)
``demo``                      :class:`DemoSeeder` functions ``fn(facility) -> words`` (``manage.py seed_demo --all``,
                              which ``make run`` calls)
``scale``                     :class:`ScaleSeeder` functions ``fn(plan) -> words``: the app's part of a generated year
                              of a large casino (``manage.py generate_casino``, :mod:`compliance.scale`)
``report_kinds``              modules whose import registers report kinds on the reports framework
``readiness``                 :class:`ReadinessSource` requirement sources (``compliance.readiness``)
``override_consumers``        who uses a signed internal-control override when a table opens (``compliance.readiness``)
``table_listeners``           told when a table opens or closes (``compliance.opening_checks``)
``floorperson_readers``       who is the floorperson assigned to a table (``compliance.floor_assignments``)
``variation_readers``         which variation of its game a table plays (``compliance.table_variation``)
``reference_data``            seeders of the reference data every deployment has (``compliance.reference``)
``verify_checks``             checks the audit chain's verification makes of the app's records (``compliance.chain``)
``signed``                    ``{"app_label.Model": receiver}``: act when a record of yours is signed
                              (``compliance.services.record_signed``)
``administered``              the administrator role manages this app's registers in the admin (view, add, change)
============================  =====================================================================================

Functions are named by dotted path (strings) so that ``apps.py`` imports nothing that needs the models; they are
imported once, in :meth:`PluggableApp.ready`. So "how does app X hook in?" has one answer: read ``X/apps.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

from django.apps import AppConfig, apps
from django.utils.module_loading import import_string

from compliance.roles import Role

__all__ = [
    "DemoSeeder",
    "NavItem",
    "PluggableApp",
    "ReadinessSource",
    "ScaleSeeder",
    "administered_labels",
    "beat_schedule",
    "demo_seeders",
    "navigation",
    "pluggable_apps",
    "scale_seeders",
]

# The sections of the menu, in the order a person reads them (compliance/navigation.py groups a long menu by them).
SECTIONS = ("General", "Coupons", "Floor", "Equipment", "Rules", "Records")


@dataclass(frozen=True)
class NavItem:
    label: str
    url_name: str
    section: str = "General"
    # Whose daily work the screen is; empty = everyone. Overseers (compliance, the Board inspector,
    # administrators) see every screen. Whether the person may open it at all is the view's answer.
    for_roles: frozenset[Role] = frozenset()


@dataclass(frozen=True)
class DemoSeeder:
    """``function(facility)`` adds the app's demo records (idempotent) and returns what it did, in words or a
    count. ``stage``: seeders run by stage, then in app order (1 stock and rules, 2 the floor, 3 equipment in play,
    4 the day's work at the tables, 5 documents about all of it)."""

    function: str
    stage: int = 1


@dataclass(frozen=True)
class ScaleSeeder:
    """``function(plan)`` fills the app's part of a generated casino (``manage.py generate_casino``,
    :mod:`compliance.scale`): the records of every day of ``plan`` as the application would have written them.
    Returns what it did, in words. ``stage``: as for :class:`DemoSeeder`. ``beside``: it may run in a second process
    beside the later stages' parts (it writes every transaction in ``compliance.scale_turns.beside_writes``, writes
    no redemption and links nothing). ``waits``: it reads what every part before it wrote, so it runs after the
    second process has finished."""

    function: str
    stage: int = 1
    beside: bool = False
    waits: bool = False


@dataclass(frozen=True)
class ReadinessSource:
    """A requirement a table must meet to open or keep gaming (``compliance.readiness.register_source``)."""

    name: str
    function: str
    models: tuple[str, ...] = ()  # "app_label.Model": the records whose writes can change its answer


class PluggableApp(AppConfig):
    """Base of every app of this project: the declarations above, plugged in when Django is ready."""

    depends_on: ClassVar[tuple[str, ...]] = ()
    navigation: ClassVar[tuple[NavItem, ...]] = ()
    panels: ClassVar[tuple[str, ...]] = ()
    beat: ClassVar[dict[str, dict[str, Any]]] = {}
    demo: ClassVar[tuple[DemoSeeder, ...]] = ()
    scale: ClassVar[tuple[ScaleSeeder, ...]] = ()
    report_kinds: ClassVar[tuple[str, ...]] = ()
    readiness: ClassVar[tuple[ReadinessSource, ...]] = ()
    override_consumers: ClassVar[tuple[str, ...]] = ()
    table_listeners: ClassVar[tuple[str, ...]] = ()
    floorperson_readers: ClassVar[tuple[str, ...]] = ()
    variation_readers: ClassVar[tuple[str, ...]] = ()
    reference_data: ClassVar[tuple[str, ...]] = ()
    verify_checks: ClassVar[tuple[str, ...]] = ()
    signed: ClassVar[dict[str, str]] = {}
    administered: ClassVar[bool] = False

    def ready(self) -> None:
        plug_in(self)


def _each(paths: tuple[str, ...]) -> Iterator[Callable[..., Any]]:
    for path in paths:
        yield import_string(path)


def plug_in(config: PluggableApp) -> None:
    """Register one app's declarations with the mechanisms that use them (idempotent)."""
    from compliance import readiness
    from compliance.chain import VERIFY_CHECKS
    from compliance.dashboard import register_panel
    from compliance.reference import REFERENCE_SEEDERS
    from compliance.services import record_signed

    for panel in _each(config.panels):
        register_panel(panel)
    for module in config.report_kinds:
        import_module(module)  # each kind registers itself on the reports framework
    for source in config.readiness:
        readiness.register_source(source.name, import_string(source.function),
                                  models=tuple(apps.get_model(label) for label in source.models))
    for consumer in _each(config.override_consumers):
        readiness.register_override_consumer(consumer)
    _plug_in_tables(config)
    for seeder in _each(config.reference_data):
        if seeder not in REFERENCE_SEEDERS:
            REFERENCE_SEEDERS.append(seeder)
    for check in _each(config.verify_checks):
        if check not in VERIFY_CHECKS:
            VERIFY_CHECKS.append(check)
    for label, receiver in config.signed.items():
        record_signed.connect(import_string(receiver), sender=apps.get_model(label),
                              dispatch_uid=f"{config.label}-{label}-signed")


def _plug_in_tables(config: PluggableApp) -> None:
    """What an app tells the others about tables: openings and closings heard, who floors them, what they play."""
    from compliance import floor_assignments, opening_checks, table_variation

    for listener in _each(config.table_listeners):
        opening_checks.register_table_listener(listener)
    for reader in _each(config.floorperson_readers):
        floor_assignments.register_floorperson_reader(reader)
    for reader in _each(config.variation_readers):
        table_variation.register_variation_reader(reader)


def pluggable_apps() -> list[PluggableApp]:
    """This project's apps, in ``INSTALLED_APPS`` order."""
    return [c for c in apps.get_app_configs() if isinstance(c, PluggableApp)]


def navigation() -> list[NavItem]:
    """Every app's menu entries, by section, each section in app order."""
    items = [item for config in pluggable_apps() for item in config.navigation]
    return sorted(items, key=lambda item: SECTIONS.index(item.section) if item.section in SECTIONS else len(SECTIONS))


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Every app's beat entries (a name declared twice is a mistake: refused at start)."""
    schedule: dict[str, dict[str, Any]] = {}
    for config in pluggable_apps():
        for name, entry in config.beat.items():
            if name in schedule:
                raise ValueError(f"beat entry {name!r} is declared by two apps")
            schedule[name] = dict(entry)
    return schedule


def demo_seeders() -> list[tuple[PluggableApp, DemoSeeder]]:
    """Every app's demo seeders in the order they run: by stage, then app order."""
    found = [(config, seeder) for config in pluggable_apps() for seeder in config.demo]
    return sorted(found, key=lambda pair: pair[1].stage)


def scale_seeders() -> list[tuple[PluggableApp, ScaleSeeder]]:
    """Every app's parts of a generated casino, in the order they run: by stage, then app order."""
    found = [(config, seeder) for config in pluggable_apps() for seeder in config.scale]
    return sorted(found, key=lambda pair: pair[1].stage)


def administered_labels() -> list[str]:
    """The app labels whose registers the administrator role manages in the admin."""
    return [config.label for config in pluggable_apps() if config.administered]
