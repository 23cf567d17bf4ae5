"""The structure docs/architecture.md promises, checked on the source so it cannot quietly erode:
reads apart from writes, no queries in views, small modules, each package stating its public API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAIN_APPS = ("coupons", "equipment", "compliance/exclusion")
MAX_LINES = 500


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


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_selectors_never_import_services(app):
    modules = _modules(app, "selectors")
    assert modules, f"{app} has no selectors"
    for path in modules:
        services = {name for name in _imported(path) if name.startswith(f"{app.replace('/', '.')}.services") or ".services" in name}
        assert not services, f"{path.relative_to(ROOT)} imports {sorted(services)}: selectors only read"


@pytest.mark.parametrize("app", (*DOMAIN_APPS, "compliance"))
def test_views_hold_no_queries(app):
    for path in _modules(app, "views"):
        text = path.read_text()
        assert ".objects" not in text, f"{path.relative_to(ROOT)} queries a model itself: read through a selector"


@pytest.mark.parametrize("app", (*DOMAIN_APPS, "compliance", "bench", "tests"))
def test_no_module_is_over_500_lines(app):
    for path in _modules(app):
        lines = len(path.read_text().splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by step"


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_each_package_states_its_public_api(app):
    for package in ("services", "selectors"):
        init = ROOT / app / package / "__init__.py"
        assert init.exists(), f"{app}.{package} is not a package"
        tree = ast.parse(init.read_text())
        declared = [n for n in tree.body if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
        assert declared, f"{init.relative_to(ROOT)} declares no __all__"


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
