"""Django's ``flush``, run as the database's owner: a transactional test empties the test database
after it with TRUNCATE, which the application role the suite connects as may not do (``db_roles``).

Only the test settings install this app; production has no flush to run.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.flush import Command as Flush

from compliance.management.commands.db_roles import connected_as_owner


class Command(Flush):
    def handle(self, **options: Any) -> None:
        with connected_as_owner():
            super().handle(**options)
