"""The one plug-in contract (compliance/registry.py), checked on every installed app of the project: each app is a
``PluggableApp`` that declares in its own ``apps.py`` what it adds; dependencies point one way (an app imports only
the apps its ``depends_on`` names, and those never import it back); the foundation names no domain app outside
``settings.py`` and ``urls.py``; nothing registers itself anywhere but through the declarations."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import reverse

from compliance import registry

ROOT = Path(__file__).resolve().parent.parent
FOUNDATION = "compliance"
# The foundation's files that may name the apps: the project's configuration and its routes.
CONFIGURATION = {ROOT / "compliance" / "settings.py", ROOT / "compliance" / "urls.py"}
# The registration calls only compliance/registry.py makes, from each app's declarations.
REGISTRATIONS = ("register_panel(", "register_source(", "register_table_listener(", "register_floorperson_reader(",
                 "register_override_consumer(", "register_variation_reader(", "record_signed.connect(",
                 "REFERENCE_SEEDERS.append(", "VERIFY_CHECKS.append(")


def _project() -> list[registry.PluggableApp]:
    return [c for c in registry.pluggable_apps() if not c.name.startswith("tests.")]


def _folder(config: registry.PluggableApp) -> Path:
    return Path(config.path)


def _own_modules(config: registry.PluggableApp) -> list[Path]:
    """The app's modules, without the folders of the apps inside it (the foundation's package holds some)."""
    inner = [_folder(c) for c in _project() if c is not config and _folder(c).is_relative_to(_folder(config))]
    return sorted(p for p in _folder(config).rglob("*.py")
                  if "migrations" not in p.parts and not any(p.is_relative_to(f) for f in inner))


def _app_of(module: str) -> str | None:
    """The project app a dotted module name belongs to (the longest app name that prefixes it)."""
    names = sorted((c.name for c in _project()), key=len, reverse=True)
    return next((n for n in names if module == n or module.startswith(n + ".")), None)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_every_app_of_the_project_is_pluggable():
    mine = [c for c in apps.get_app_configs() if Path(c.path).is_relative_to(ROOT) and ".venv" not in Path(c.path).parts
            and not c.name.startswith("tests.")]
    plain = [c.name for c in mine if not isinstance(c, registry.PluggableApp)]
    assert not plain, f"{plain} must subclass compliance.registry.PluggableApp and declare what they add"
    assert len(mine) >= 10


@pytest.mark.parametrize("config", _project(), ids=lambda c: c.label)
def test_an_app_imports_only_the_apps_it_declares(config):
    allowed = {config.name, FOUNDATION, *config.depends_on}
    for path in _own_modules(config):
        reached = {_app_of(m) for m in _imports(path)} - {None}
        undeclared = reached - allowed
        assert not undeclared, (f"{path.relative_to(ROOT)} imports {sorted(undeclared)}: name it in "
                                f"{config.name}'s depends_on (apps.py), or ask through the registry")


def test_dependencies_point_one_way():
    """The declared dependencies form no cycle, and the foundation depends on nothing."""
    graph = {c.name: set(c.depends_on) for c in _project()}
    assert graph[FOUNDATION] == set()
    unknown = {d for deps in graph.values() for d in deps} - set(graph)
    assert not unknown, f"depends_on names apps that are not installed: {unknown}"
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"a cycle of dependencies: {' → '.join((*path, name))}"
        if name in done:
            return
        for other in graph[name]:
            visit(other, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())


def _domain_names() -> re.Pattern[str]:
    """A domain app named in code: its module path (``coupons.``, ``compliance.staffing``) or its URL namespace /
    app label followed by ``:`` or ``.`` (``"equipment:board"``, ``"coupons.CouponReceipt"``)."""
    domain = [c for c in _project() if c.name != FOUNDATION]
    words = sorted({re.escape(c.name) for c in domain} | {re.escape(c.label) for c in domain}, key=len, reverse=True)
    return re.compile(r"(?<![\w.])(?:" + "|".join(words) + r")[.:]\w")


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module's code, without docstrings and help texts (prose may say which app does
    what)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    prose = docstrings | {id(node.value) for node in ast.walk(tree)
                          if isinstance(node, ast.keyword) and node.arg in ("help_text", "verbose_name")}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose]


def test_the_foundation_names_no_domain_app():
    foundation = apps.get_app_config(FOUNDATION)
    pattern = _domain_names()
    for path in _own_modules(foundation):
        if path in CONFIGURATION:
            continue
        imported = {m for m in _imports(path) if _app_of(m) not in (None, FOUNDATION)}
        assert not imported, f"{path.relative_to(ROOT)} imports {sorted(imported)}: the foundation imports no app"
        named = [s for s in _code_strings(path) if pattern.search(s)]
        assert not named, f"{path.relative_to(ROOT)} names a domain app: {named[:3]}; let the app declare it"


def test_only_the_registry_registers():
    """Panels, readiness sources, listeners, readers, seeders, checks and signing receivers are declared in an
    app's apps.py and registered by compliance/registry.py alone."""
    for config in _project():
        for path in _own_modules(config):
            if path == ROOT / "compliance" / "registry.py":
                continue
            text = path.read_text()
            called = [r for r in REGISTRATIONS if re.search(r"(?<!def )\b" + re.escape(r), text)]
            assert not called, f"{path.relative_to(ROOT)} registers {called} itself: declare it in its apps.py"


def test_every_declared_function_and_model_exists():
    from django.utils.module_loading import import_string

    for config in _project():
        for path in (*config.panels, *config.override_consumers, *config.table_listeners, *config.floorperson_readers,
                     *config.variation_readers, *config.reference_data, *config.verify_checks,
                     *config.signed.values(), *(d.function for d in config.demo),
                     *(s.function for s in config.readiness)):
            assert callable(import_string(path)), path
        for label in (*config.signed, *(m for s in config.readiness for m in s.models)):
            assert apps.get_model(label)


def test_every_menu_entry_is_a_page():
    items = registry.navigation()
    assert {item.url_name for item in items} >= {"dashboard", "coupons:ledger", "equipment:board", "reports:home"}
    for item in items:
        assert reverse(item.url_name)
        assert item.section in registry.SECTIONS, item


def test_beat_runs_what_the_apps_declare():
    """Beat's schedule, as a Celery process has it once it imported its modules, is the union of the apps' declarations, and every entry
    names a task the worker knows. Settings name no task."""
    from celery.signals import import_modules
    from django.conf import settings

    from compliance.celery import app

    assert not getattr(settings, "CELERY_BEAT_SCHEDULE", {}), "beat entries belong in the apps' apps.py"
    app.loader.import_default_modules()
    import_modules.send(sender=app)
    schedule = app.conf.beat_schedule
    declared = {name for c in _project() for name in c.beat}
    assert set(schedule) == declared
    assert {"equipment-sweep-clocks", "reports-quarterly", "compliance-audit-chain-link"} <= declared
    unknown = {entry["task"] for entry in schedule.values()} - set(app.tasks)
    assert not unknown, f"beat entries name tasks no worker has: {unknown}"


def test_a_beat_entry_declared_twice_is_refused(monkeypatch):
    coupons = apps.get_app_config("coupons")
    monkeypatch.setattr(type(coupons), "beat", {"equipment-sweep-clocks": {"task": "x", "schedule": 60}})
    with pytest.raises(ValueError, match="declared by two apps"):
        registry.beat_schedule()


def test_demo_seeders_run_in_stages():
    order = [(c.label, s.function.rsplit(".", 1)[-1]) for c, s in registry.demo_seeders()]
    stages = [s.stage for _, s in registry.demo_seeders()]
    assert stages == sorted(stages)
    assert order.index(("coupons", "coupons_demo_seed")) < order.index(("coupons", "redemptions_demo_seed"))
    assert order.index(("staffing", "staffing_demo_seed")) < order.index(("coupons", "redemptions_demo_seed"))
    assert order[-1] == ("reports", "reports_demo_seed")
