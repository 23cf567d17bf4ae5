"""The test databases are clones of a template migrated from this very code (``tests/db_template.py``): the
template's name follows every file and setting a migrated database depends on, and a clone has nothing left to
migrate."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings

from tests import db_template


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small copy of the project's layout: an app with a migration, a package's helper, the locks."""
    (tmp_path / "coupons" / "migrations").mkdir(parents=True)
    (tmp_path / "coupons" / "migrations" / "0001_initial.py").write_text("operations = []\n")
    (tmp_path / "compliance").mkdir()
    (tmp_path / "compliance" / "reference.py").write_text("ROLES = ('a',)\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "dev.txt").write_text("django==5.2\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    monkeypatch.setattr(db_template, "ROOT", tmp_path)
    monkeypatch.setattr(db_template, "SOURCES", ("compliance", "coupons"))
    return tmp_path


def test_the_templates_name_changes_with_a_migration_a_helper_it_imports_a_pinned_version_or_the_chain_key(tree):
    first = db_template.code_digest()
    assert db_template.code_digest() == first  # the same tree, the same template
    changes = [
        ("coupons/migrations/0001_initial.py", "operations = [1]\n"),  # a migration edited
        ("coupons/migrations/0002_more.py", "operations = []\n"),  # a migration added
        ("compliance/reference.py", "ROLES = ('a', 'b')\n"),  # data a migration's function writes
        ("requirements/dev.txt", "django==5.2.1\n"),  # another Django renders the states
    ]
    seen = {first}
    for path, text in changes:
        (tree / path).write_text(text)
        seen.add(db_template.code_digest())
    with override_settings(AUDIT_CHAIN_KEY="another-key-the-reference-rows-are-sealed-under"):
        seen.add(db_template.code_digest())
    assert len(seen) == len(changes) + 2
    (tree / "coupons" / "migrations" / "0002_more.py").rename(tree / "coupons" / "migrations" / "0002_renamed.py")
    assert db_template.code_digest() not in seen  # a file's name counts, not only its content


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the template is PostgreSQL's (CREATE DATABASE … TEMPLATE)")
@pytest.mark.django_db
def test_this_test_database_is_a_clone_of_this_codes_template_with_nothing_left_to_migrate():
    expected = db_template.template_name(connection.settings_dict["NAME"])  # the test database's
    assert connection.settings_dict["TEST"]["TEMPLATE"] == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT datistemplate, datallowconn FROM pg_database WHERE datname = %s", [expected])
        assert cursor.fetchone() == (True, False)  # nobody connects to it, so nothing changes it after its build
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
