"""What compliance/exclusion promises beyond tests/test_architecture.py (which walks it with the other domain
apps: selectors apart from services, no queries in views, small modules, public APIs): the pure engine and
file-format modules import nothing from Django, the models package states its API, every integer bounded."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.apps import apps
from django.db import models

from tests.compliance.test_model_bounds import _declared

APP = Path(__file__).resolve().parents[2] / "compliance" / "exclusion"
PURE = ("matching", "rule", "names", "nicknames", "business_days", "csv_format")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", PURE)
def test_the_engine_and_the_file_format_import_nothing_from_django(module):
    imported = _imports(APP / f"{module}.py")
    assert not {n for n in imported if n.startswith("django") or ".models" in n or ".selectors" in n}


@pytest.mark.parametrize("package", ["models"])
def test_each_package_states_its_public_api(package):
    tree = ast.parse((APP / package / "__init__.py").read_text())
    assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
               for n in tree.body)


def test_every_integer_field_is_bounded_in_the_model_and_the_table():
    checked = 0
    for model in apps.get_app_config("exclusion").get_models():
        if model.__name__.startswith("Historical"):
            continue
        checks = {c.name: c for c in model._meta.constraints if isinstance(c, models.CheckConstraint)}
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.IntegerField) or isinstance(field, models.AutoField):
                continue
            low, high = _declared(field)
            assert None not in (low, high), f"{model.__name__}.{field.name} has no bounds"
            check = checks.get(f"{model._meta.db_table}_{field.name}_bounds")
            assert check is not None and check.condition == models.Q(**{f"{field.name}__range": (low, high)})
            checked += 1
    assert checked >= 9
