"""Django's ``flush``, run as the database's owner: a transactional test empties the test database
after it with TRUNCATE, which the application role the suite connects as may not do (``db_roles``).

The roles (groups), the content types and the permissions are the owner's too: the application role only
reads them (roles are code, made by migrations). So after emptying the database the owner puts them back,
as the migrations and ``post_migrate`` made them; the rest of the reference data is restored by the tests'
fixtures (``tests/conftest.py``). The test settings leave ``auth`` and ``contenttypes`` out of the
serialized copy a ``serialized_rollback`` test restores, for the same reason.

Only the test settings install this app; production has no flush to run.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.commands.flush import Command as Flush

from compliance.management.commands.db_roles import connected_as_owner
from compliance.reference import ROLES
from compliance.signals import grant_administrator_permissions


def restore_roles() -> None:
    """The content types and permissions (a flush before a serialized_rollback test skips ``post_migrate``),
    the groups of every role and the system account, as migration 0002 made them."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes

    for app_config in apps.get_app_configs():
        create_contenttypes(app_config, verbosity=0)
        create_permissions(app_config, verbosity=0)
    group_model, user_model = apps.get_model("auth", "Group"), apps.get_model("auth", "User")
    for name in ROLES:
        group_model.objects.get_or_create(name=name)
    user_model.objects.get_or_create(username="system",
                                     defaults={"password": "!system-account-no-login", "is_active": False})
    grant_administrator_permissions()


class Command(Flush):
    def handle(self, **options: Any) -> None:
        with connected_as_owner():
            super().handle(**options)
            restore_roles()
