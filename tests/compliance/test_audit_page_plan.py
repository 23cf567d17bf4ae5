"""The audit trail's newest page reads a page's worth of changes, not every change without a facility (issue 27:
the page p95 under 300 ms on a year of changes).

On 30 Nov 2026 the page took 1.2 s on 2,000,000 changes (``bench/audit_page_bench.py``): the probes added to read
the older changes of seventeen record types through their record (``compliance.selectors._through_here``) sat in
the same part as the shared registers' and the staff's changes, and the planner then read every change without a
facility and sorted them, for every page. Asked here as PostgreSQL answers it, on its own statistics: how many rows
of the audit table the page's first statement reads (``EXPLAIN ANALYZE``), not how long it takes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compliance import selectors
from compliance.keyset import Keyset
from compliance.models import AuditEvent, Facility, Profile
from compliance.roles import Role
from tests.compliance.attack import as_owner
from tests.factories import make_person

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL's plans")]

EVENTS = 40_000  # 80 % this facility's, 12 % another's, 6 % shared registers', 2 % staff profiles'
PAGE = 50


def _changes(here: Facility, other: Facility, actor: Any) -> None:
    """A year of changes in one statement, as the bench writes them (the table refuses only UPDATE and DELETE)."""
    profiles = list(Profile.objects.filter(facilities=here).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute("""
            INSERT INTO compliance_auditevent (occurred_at, facility_id, actor_id, action, model_label, model_name,
                                               object_id, object_repr, history_id, changes, reason, seal)
            SELECT timestamptz '2026-01-01 00:00+00' + n * interval '13 minutes',
                   CASE WHEN n %% 100 < 80 THEN %(here)s WHEN n %% 100 < 92 THEN %(other)s END, %(actor)s,
                   'changed',
                   CASE WHEN n %% 100 < 92 THEN 'coupons.LedgerLine'
                        WHEN n %% 100 < 98 THEN (%(shared)s::text[])[1 + n %% cardinality(%(shared)s::text[])]
                        ELSE %(profile)s END,
                   'ledger line',
                   CASE WHEN n %% 100 >= 98 THEN ((%(profiles)s::int[])[1 + n %% cardinality(%(profiles)s::int[])])::text
                        ELSE n::text END,
                   'change ' || n, n, '{}'::jsonb, '', 'test-dummy-seal'
            FROM generate_series(1, %(rows)s) AS n
        """, {"rows": EVENTS, "here": here.pk, "other": other.pk, "actor": actor.pk, "profile": Profile._meta.label,
              "shared": list(selectors._shared_register_labels()), "profiles": profiles})
    as_owner("ANALYZE compliance_auditevent", triggers_off=False)  # the statistics autovacuum keeps


def _rows_read(sql: str) -> int:
    """The rows of the audit table the statement's scans read (returned or filtered out), as PostgreSQL ran it."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    read = 0

    def walk(node: dict[str, Any]) -> None:
        nonlocal read
        if node.get("Relation Name") == AuditEvent._meta.db_table:
            loops = node.get("Actual Loops", 1)
            read += (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * loops
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return read


def test_the_newest_page_reads_a_page_of_changes_not_every_change_without_a_facility():
    here, other = Facility.objects.create(code="plan-a", name="A"), Facility.objects.create(code="plan-b", name="B")
    officer = make_person(Role.COMPLIANCE_OFFICER, here)
    make_person(Role.FINANCE_STAFF, here)
    _changes(here, other, officer)
    with CaptureQueriesContext(connection) as captured:
        page = selectors.audit_event_page(facility=here, keyset=Keyset(), limit=PAGE + 1)
    assert len(page) == PAGE + 1
    keys = next(q["sql"] for q in captured.captured_queries if "UNION ALL" in q["sql"])
    without_facility = EVENTS * 8 // 100
    read = _rows_read(keys)
    # Each part of the trail reads its page's worth in time order (and what its walk passes over): a few hundred
    # rows. The slow plan read every one of the 3,200 changes without a facility.
    assert read < without_facility // 4, f"the newest page's keys read {read} rows of the audit table"
