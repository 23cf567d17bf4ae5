"""The structure docs/architecture.md promises, checked on the source so it cannot quietly erode:
reads apart from writes, no queries in views, small modules, each package stating its public API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 500


def _project_apps() -> tuple[str, ...]:
    """Every installed app of this project but the foundation, as a folder under ROOT (``compliance/staffing``)."""
    from compliance.registry import pluggable_apps

    return tuple(str(Path(c.path).relative_to(ROOT)) for c in pluggable_apps()
                 if c.name != "compliance" and not c.name.startswith("tests."))


DOMAIN_APPS = _project_apps()


def _modules(*parts: str) -> list[Path]:
    base = ROOT.joinpath(*parts)
    if base.is_dir():
        return sorted(p for p in base.rglob("*.py") if "migrations" not in p.parts)
    file = base.with_suffix(".py")
    return [file] if file.exists() else []


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _layer(app: str, layer: str) -> list[Path]:
    """An app's modules of one layer, in either anatomy: ``selectors.py`` or ``selectors/``; for views also
    ``views_*.py`` (a views module split by screen)."""
    found = _modules(app, layer)
    if layer == "views":
        found += sorted((ROOT / app).glob("views_*.py"))
    return found


def _own_modules(app: str) -> list[Path]:
    """An app's modules, without the folders of the apps inside it (the foundation holds the domain apps)."""
    inner = [ROOT / a for a in DOMAIN_APPS if a != app and (ROOT / a).is_relative_to(ROOT / app)]
    return [p for p in _modules(app) if not any(p.is_relative_to(folder) for folder in inner)]


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_selectors_never_import_services(app):
    for path in _layer(app, "selectors"):
        services = {name for name in _imported(path) if name.startswith(f"{app.replace('/', '.')}.services") or ".services" in name}
        assert not services, f"{path.relative_to(ROOT)} imports {sorted(services)}: selectors only read"


@pytest.mark.parametrize("app", (*DOMAIN_APPS, "compliance"))
def test_views_hold_no_queries(app):
    views = [p for p in _layer(app, "views") if app != "compliance" or p in _own_modules(app)]
    if app == "compliance":
        views += [p for p in _own_modules(app) if p.name.startswith("views_")]
    for path in views:
        text = path.read_text()
        assert ".objects" not in text, f"{path.relative_to(ROOT)} queries a model itself: read through a selector"


@pytest.mark.parametrize("app", (*DOMAIN_APPS, "compliance", "bench", "tests"))
def test_no_module_is_over_500_lines(app):
    for path in _modules(app):
        lines = len(path.read_text().splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by step"


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_each_package_states_its_public_api(app):
    """Services and selectors, whether one module or a package, state their public API in ``__all__``."""
    for layer in ("services", "selectors"):
        for declaring in (ROOT / app / layer / "__init__.py", ROOT / app / f"{layer}.py"):
            if not declaring.exists():
                continue
            tree = ast.parse(declaring.read_text())
            declared = [n for n in tree.body if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
            assert declared, f"{declaring.relative_to(ROOT)} declares no __all__"


_PLAIN_NUMBER_FIELDS = ("forms.IntegerField(", "forms.DecimalField(", "forms.FloatField(", "serializers.IntegerField(",
                        "serializers.DecimalField(", "serializers.FloatField(")


def test_every_number_field_reads_the_digits_0_to_9_only():
    """Django's and DRF's number fields read "١٢٣" as 123 (issue 22): every form and API declares the fields of
    compliance.numbers instead, the one reading of a typed number."""
    found = []
    for app in ("compliance", "coupons", "equipment"):
        for path in _modules(app):
            if path.name == "numbers.py":
                continue
            text = path.read_text()
            found += [f"{path.relative_to(ROOT)}: {field}" for field in _PLAIN_NUMBER_FIELDS if field in text]
    assert not found, f"use compliance.numbers' fields: {found}"


def _installed_app_modules() -> list[Path]:
    """Every module of every installed app that lives in this repository (and the benchmarks), once."""
    from django.apps import apps

    folders = {Path(config.path).resolve() for config in apps.get_app_configs()} | {ROOT / "bench"}
    found = {path for folder in folders if folder.is_relative_to(ROOT) and ".venv" not in folder.parts
             for path in folder.rglob("*.py")}
    return sorted(found)


def test_the_facility_row_is_locked_only_through_compliance_locks():
    """``Facility.objects.select_for_update()`` takes ``FOR UPDATE``, which queues every insert referencing the
    facility (redemptions included): services call ``compliance.locks.lock_facility`` (``FOR NO KEY UPDATE``) or
    ``lock_facility_shared`` (``FOR SHARE``) instead (issue 24)."""
    locks = ROOT / "compliance" / "locks.py"
    modules = _installed_app_modules()
    assert locks in modules and ROOT / "coupons" / "ledger.py" in modules
    offenders = [str(path.relative_to(ROOT)) for path in modules if path != locks and any(
        call in path.read_text() for call in ("Facility.objects.select_for_update",
                                              "Facility._default_manager.select_for_update"))]
    assert not offenders, f"{offenders} lock the facility row themselves: use compliance.locks.lock_facility"


# --- one shared way (issue 24, item 3): a form or button calling a service, the facility pre-check, the 404, a
# person printed. Each walks every installed app's folder, so an app added later is held to it too.

_SHARED_VIEWS = ROOT / "compliance" / "views.py"
_PEOPLE = ROOT / "compliance" / "people.py"


def _view_modules() -> list[Path]:
    """Every installed app's screens: ``views.py``, ``views_*.py`` and the modules of a ``views/`` package. The JSON
    API keeps its own error shape and codes (coupons/api) and is not a screen."""
    return [p for p in _installed_app_modules() if (p.name.startswith("views") or "views" in p.parent.name)
            and p.parent.name != "api" and "tests" not in p.relative_to(ROOT).parts[:1]]


def _services_called(function: ast.FunctionDef, service_names: set[str]) -> list[str]:
    calls = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = node.func
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                    target.value.id in service_names):
                calls.append(f"{target.value.id}.{target.attr}")
            elif isinstance(target, ast.Name) and target.id in service_names:
                calls.append(target.id)
    return calls


def _service_names(tree: ast.Module) -> set[str]:
    """The names a module binds to services: ``services`` (and aliases of it) and functions imported from a
    services module."""
    names = {"services"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            from_services = ".services" in f".{node.module}" or node.module.endswith("services")
            for alias in node.names:
                if from_services or alias.name == "services":
                    names.add(alias.asname or alias.name)
    return names


def test_views_list_every_installed_app():
    modules = {str(p.relative_to(ROOT)) for p in _view_modules()}
    for app in DOMAIN_APPS:
        assert any(m.startswith(f"{app}/") for m in modules), f"no screens found in {app}"


def test_a_form_or_button_calls_a_service_only_through_service_form_view():
    """One class answers every form and button that calls a service (``compliance.views.ServiceFormView``: a
    refusal on the form with status 422, or on the button's page as a message). A view's own ``post`` or
    ``form_valid`` calling a service would answer refusals its own way again. Choosing the facility to work in
    (which precedes the facility pre-check) is the one exception."""
    offenders = []
    for path in _view_modules():
        tree = ast.parse(path.read_text())
        names = _service_names(tree)
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if path == _SHARED_VIEWS and cls.name in {"ServiceFormView", "FacilitySelectView"}:
                continue
            for function in cls.body:
                if isinstance(function, ast.FunctionDef) and function.name in {"post", "form_valid", "put", "patch",
                                                                               "delete"}:
                    called = _services_called(function, names)
                    if called:
                        offenders.append(f"{path.relative_to(ROOT)}: {cls.name}.{function.name} calls {called}")
    assert not offenders, f"use compliance.views.ServiceFormView (perform; button = True for a button): {offenders}"


def test_every_404_of_a_screen_is_found_or_404():
    """``compliance.views.found_or_404`` is the one "not found" (another facility's record looks like none)."""
    offenders = []
    for path in _installed_app_modules():
        # The Django admin (its own pages, its own 404s) and the JSON API (its own error shape) are not screens.
        if path == _SHARED_VIEWS or "api" in path.parent.name or path.name == "admin.py":
            continue
        text = path.read_text()
        offenders += [f"{path.relative_to(ROOT)}: {what}" for what in ("Http404(", "get_object_or_404(")
                      if what in text]
    assert not offenders, f"use compliance.views.found_or_404: {offenders}"


def test_the_facility_pre_check_is_said_once():
    """``FacilityRequiredMixin`` is the one "does this person work in a facility" of every screen: what the address
    names is looked up in ``find_records`` after it, never in a ``dispatch`` that reads ``request.facility``
    itself."""
    offenders = []
    for path in _view_modules():
        if path == _SHARED_VIEWS:
            continue
        text = path.read_text()
        offenders += [f"{path.relative_to(ROOT)}: {what}" for what in (
            'getattr(request, "facility"', "request.facility", "not assigned to any facility") if what in text]
    assert not offenders, f"use FacilityRequiredMixin and find_records: {offenders}"


def test_a_person_is_printed_only_by_person_name():
    """``compliance.people.person_name`` (the ``|person`` filter in templates) prints a member of staff everywhere;
    a page, document, choice or refusal that reads the profile's name itself would print them its own way again."""
    reads = ("get_full_name(", '"full_name", "")', "profile.full_name} (", "self.full_name} ({self.credential",
             ".profile.full_name|")
    offenders = [f"{path.relative_to(ROOT)}: {what}" for path in _installed_app_modules()
                 if path != _PEOPLE and path.name != "admin.py" for what in reads if what in path.read_text()]
    offenders += [f"{path.relative_to(ROOT)}: {what}" for path in sorted((ROOT / "templates").rglob("*.html"))
                  for what in (".profile.full_name", "get_full_name") if what in path.read_text()]
    assert not offenders, f"use compliance.people.person_name / {{{{ person|person }}}}: {offenders}"
