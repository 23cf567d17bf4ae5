"""``manage.py generate_casino`` (issue 27, item 1) on the test database, small: three gaming days of 30 tables.

Every app's part reports; the audit chain of what it wrote verifies whole; each page that shows a generated record
has one (a reconciliation form and finance's processing each day, dice sets, rosters, the Board's lists, a mailing,
report versions, Rules Submission versions); and a second run with the same seed on a fresh database, in one process
where the first wrote the floor's parts in a second (``--one-writer``), writes the same rows: the same number in every
table but the chain's links (cut where the linker ran), the same redemptions (serial, table, day) and the same mailed
serials.

Transactional (the generator's services commit, and what runs on commit — the mailing's jobs, the reports, the
breach syncs — runs as in life); the database is emptied between the two runs and restored after the test.
"""

from __future__ import annotations

import hashlib
import io
from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.test.utils import override_settings

from compliance.chain import chain_verify
from compliance.exclusion.models import ExclusionEntry, ExclusionList, ScreeningRun
from compliance.gaming_day import gaming_day
from compliance.models import Facility
from compliance.reference import ensure_reference_data
from compliance.registry import scale_seeders
from compliance.reports.models import ReportFiling, ReportRun
from compliance.reports.periods import quarter_of
from compliance.staffing.models import Roster
from compliance.submissions.models import BoardDecision, RulesSubmission, WagerLimitChange
from coupons.models import FinanceDayProcessing, MailedCoupon, MailingCampaign, ReconciliationForm, Redemption
from equipment.models import DiceSet
from tests.vendors import postgresql_only

pytestmark = [pytest.mark.django_db(transaction=True, serialized_rollback=True),
              postgresql_only("the generator fills PostgreSQL by COPY and SQL")]

PLAN = {"days": 3, "tables": 30, "redemptions_per_quarter": 9000, "exclusion_entries": 500, "seed": 3}


def _generate(**more: bool) -> tuple[str, dict[str, int]]:
    """What the command said, and the rows it added to each table."""
    before = _rows()
    out = io.StringIO()
    # DEBUG on, as in development: the command still keeps no statement's text (a year's hourly statements held
    # with their values took hundreds of megabytes: 456 MB at most for 12 days against 321 MB without).
    with override_settings(DEBUG=True):
        connection.queries_log.clear()
        call_command("generate_casino", stdout=out, **PLAN, **more)
        logged = [query["sql"] for query in connection.queries_log]
        # Only its checks before it writes (the facility is new) and after (ANALYZE, the tables' rows).
        assert len(logged) <= 3 and not any("INSERT" in sql for sql in logged), logged[:5]
    return out.getvalue(), {table: rows - before.get(table, 0) for table, rows in _rows().items()}


def _rows() -> dict[str, int]:
    """Rows of every table but Django's own (users, groups, content types).

    The generator's rows are what a run adds: a database fresh from its migrations holds the reference data's
    history and audit events, one emptied and given its reference data again does not."""
    counts = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names()):
            if table.startswith(("django_", "auth_")):
                continue
            cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 (the database's own table names)
            counts[table] = cursor.fetchone()[0]
    return counts


def _digest() -> str:
    """What was redeemed where and when, and which serials were mailed to whom, independent of the ids."""
    digest = hashlib.sha256()
    for row in (Redemption.objects.order_by("series__code", "serial")
                .values_list("series__code", "serial", "table__number", "gaming_date", "position", "chips_cents")):
        digest.update(repr(row).encode())
    for row in MailedCoupon.objects.order_by("serial").values_list("serial", "recipient__key", "recipient__full_name"):
        digest.update(repr(row).encode())
    return digest.hexdigest()


def _fresh_database() -> None:
    """Empty the database as a transactional test's teardown does, and put back what migrations made."""
    call_command("flush", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()
    ensure_reference_data()


def _each_day_has_its_records(facility: Facility) -> None:
    assert ReconciliationForm.objects.filter(facility=facility).count() == PLAN["days"]
    assert FinanceDayProcessing.objects.filter(facility=facility).count() == PLAN["days"]
    assert Redemption.objects.filter(facility=facility).exists()
    assert DiceSet.objects.filter(table__facility=facility).count() >= PLAN["days"]
    assert Roster.objects.filter(facility=facility).count() == 3 * PLAN["days"]  # three shifts a day


def _the_documents_exist(facility: Facility) -> None:
    in_force = [ExclusionList.objects.filter(facility=facility, kind=kind).order_by("-board_list_date").first()
                for kind in ("self_exclusion", "involuntary_exclusion")]
    assert sum(lists.row_count for lists in in_force if lists is not None) == PLAN["exclusion_entries"]
    assert ExclusionEntry.objects.filter(exclusion_list__in=in_force).count() == PLAN["exclusion_entries"]
    days = [gaming_day(facility) - timedelta(days=n) for n in range(1, PLAN["days"] + 1)]
    quarters_ended = sum(quarter_of(day).end == day for day in days)  # three days seldom hold a quarter's end
    mailings = MailingCampaign.objects.filter(facility=facility)
    assert mailings.count() == 1 + sum(day.day == 1 and day.month in (1, 4, 7, 10) for day in days[:-1])
    for mailing in mailings:
        assert mailing.is_released and mailing.is_complete
        assert ScreeningRun.objects.filter(facility=facility, object_id=mailing.pk).exists()
        assert MailedCoupon.objects.filter(campaign=mailing).count() > 0
    assert ReportRun.objects.filter(facility=facility, status=ReportRun.Status.SUCCEEDED).count() >= 1
    assert not ReportRun.objects.exclude(status=ReportRun.Status.SUCCEEDED).exists()
    assert ReportFiling.objects.count() == quarters_ended
    assert RulesSubmission.objects.filter(facility=facility).count() == 2  # the first version and an amendment
    assert BoardDecision.objects.filter(facility=facility).count() == 1  # the amendment is with the Board
    assert WagerLimitChange.objects.filter(table__facility=facility).count() >= PLAN["tables"]


def _the_redemptions_floor_is_at_their_last_link() -> None:
    """The generator is the redemptions' only writer and files their links once each hour's sessions have
    committed, so the chain's floor (below it every row is linked) follows them: only the last link's rows stand
    above it, not every redemption linked within the horizon's last minute (then read again by every later link
    and every report's anchor)."""
    from compliance.models import ChainLink

    newest = ChainLink.objects.filter(model="coupons.Redemption", scheme=2).order_by("-pk").first()
    assert newest is not None
    above = Redemption.objects.filter(pk__gt=newest.floor).count()
    assert above <= newest.row_count, (above, newest.row_count, Redemption.objects.count())


def test_a_generated_casino_reports_each_part_verifies_and_is_reproducible_from_its_seed():
    out, added = _generate()
    for config, seeder in scale_seeders():
        name = seeder.function.rsplit(".", 1)[-1]
        assert f"  {config.verbose_name} ({name}) …" in out
    results = [line for line in out.splitlines() if line.startswith("  ") and line.rstrip().endswith(" s)")
               and "…" not in line and not line.startswith("  audit chain")]
    assert len(results) == len(scale_seeders()), out
    report = chain_verify()
    assert report.intact, report.findings
    _the_redemptions_floor_is_at_their_last_link()
    facility = Facility.objects.get(code="demo")
    _each_day_has_its_records(facility)
    _the_documents_exist(facility)
    digest = _digest()

    _fresh_database()
    _out, added_again = _generate(one_writer=True)  # the same casino whether the floor is written beside or not
    # The chain's links are cut where the linker ran: with two writers, at the mornings the floor's writer had no
    # transaction in flight (compliance.scale_turns.linking_if_free), so their number is the clock's, as in life; the
    # rows they link are the seed's, and both chains verify.
    differ = {table: (rows, added_again[table]) for table, rows in added.items() if added_again[table] != rows}
    assert {table: rows for table, rows in differ.items() if table != "compliance_chainlink"} == {}
    assert _digest() == digest
    assert chain_verify().intact


def test_the_generators_sessions_commit_unawaited_and_every_other_keeps_the_servers_setting():
    """``synchronous_commit`` is off in the command's session and in every session it opens (the second writer's
    are opened after the fork), and back to the server's setting afterwards."""
    from compliance.management.commands.generate_casino import _commits_not_awaited

    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return str(cursor.fetchone()[0])

    server = setting()
    assert server == "on"
    with _commits_not_awaited():
        assert setting() == "off"
        connection.close()  # a session opened while it runs
        assert setting() == "off"
    assert setting() == server
    connection.close()
    assert setting() == server
