"""The generator's writer in SQL (compliance.scale_sql) writes a redemption, its history row and its audit event as the
application writes them: the row's seal made in SQL is the one ``Sealed.compute_seal`` makes, the audit event is
the one the audit receiver (``compliance.signals.audit_event_of``) makes of the row and its history row, sealed
alike, and the chain links it files from the digests computed in SQL verify whole."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import transaction

from compliance.chain import chain_link_all, chain_verify
from compliance.models import AuditEvent, ChainLink
from compliance.scale_sql import rows_as_saved_sql
from compliance.signals import audit_event_of
from coupons.models import Redemption
from coupons.scale import REDEMPTION
from coupons.services.redemption import Scan, redemption_record
from tests.coupons import conftest as coupon_fixtures
from tests.vendors import postgresql_only

pytestmark = [pytest.mark.usefixtures("coupon_clock", "coupon_tables_ready"),
              postgresql_only("the rows are built and sealed in PostgreSQL's SQL")]


EVENT_FIELDS = ("occurred_at", "facility_id", "actor_id", "action", "model_label", "model_name", "object_id",
                "object_repr", "history_id", "changes", "reason")


def _row(program, table, dealer, serial: int, moment: datetime, position: str) -> tuple:
    series = program.series
    values = {"facility_id": program.facility.pk, "series_id": series.pk, "serial": serial,
              "denomination_cents": series.denomination_cents, "gaming_date": coupon_fixtures.TODAY,
              "redeemed_at": moment, "table_id": table.pk, "game_id": table.game_id, "position": position,
              "chips_cents": series.denomination_cents, "wager": "", "channel": Redemption.Channel.TABLE.value,
              "device_id": None, "redeemed_by_id": dealer.pk, "drop_count_id": None}
    return (*(values[name] for name in REDEMPTION), dealer.pk,
            f"{series.serial(serial)} redeemed at table {table.number}")


@pytest.mark.django_db
def test_rows_written_in_sql_are_sealed_audited_and_linked_as_the_application_writes_them(
        program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    redemption_record(facility=program.facility, user=dealer,  # the scan's own row, linked by the linker
                      scan=Scan(serial="MP-0000001", table=craps_table, position="pass_line", chips_cents=2500))
    moments = [datetime(2026, 11, 3, 14, 30, 5, tzinfo=UTC), datetime(2026, 11, 3, 14, 31, 7, 123456, tzinfo=UTC)]
    with transaction.atomic():
        ids = rows_as_saved_sql(Redemption, REDEMPTION, [
            _row(program, craps_table, dealer, 2, moments[0], "pass_line"),
            _row(program, craps_table, dealer, 3, moments[1], "dont_pass")], moment="redeemed_at")
    for pk, moment in zip(ids, moments, strict=True):
        row = Redemption.objects.select_related("series", "table").get(pk=pk)
        assert row.seal == row.compute_seal()
        assert row.redeemed_at == moment
        history = row.history.get()
        assert (history.history_type, history.history_user_id, history.history_date) == ("+", dealer.pk, moment)
        assert history.seal == row.seal
        event = AuditEvent.objects.get(model_label="coupons.Redemption", object_id=str(pk))
        expected = audit_event_of(row, history)
        assert {f: getattr(event, f) for f in EVENT_FIELDS} == {f: getattr(expected, f) for f in EVENT_FIELDS}
        assert event.seal_intact()
    assert ChainLink.objects.filter(model="coupons.Redemption", first_id=ids[0], last_id=ids[1]).exists()
    chain_link_all()
    report = chain_verify()
    assert report.intact, report.findings
    assert not report.pending


@pytest.mark.django_db
def test_text_the_sql_would_write_differently_from_python_is_refused(program, craps_table, dealer):
    row = list(_row(program, craps_table, dealer, 2, datetime(2026, 11, 3, 14, 30, tzinfo=UTC), "pass_line"))
    row[-1] = "MP-0000002 redeemed at table Ü"
    with pytest.raises(ValueError, match="printable ASCII"), transaction.atomic():
        rows_as_saved_sql(Redemption, REDEMPTION, [tuple(row)], moment="redeemed_at")
