"""§ 528.7 in table readiness: a provider's game on a table that may not be used on the gaming day of the instant
asked is unmet, on a closed table (it may not open) and an open one (in breach), in a fixed number of queries."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from compliance import readiness
from compliance.providers import services
from compliance.providers.readiness import provider_unmet
from tests.equipment.conftest import make_table
from tests.providers.conftest import at_noon

pytestmark = pytest.mark.django_db

EXPIRES = date(2026, 4, 1)  # the term approved 1 Apr 2022


@pytest.fixture
def usable(facility, provider, offering, compliance_officer):
    """The provider certified (to 1 Apr 2026), its offering approved by the laboratory and for use here."""
    term = services.certification_record(facility=facility, provider=provider, approved_on=date(2022, 4, 1),
                                         user=compliance_officer)
    services.offering_lab_approval_record(facility=facility, offering=offering, approved_on=date(2022, 5, 1),
                                          user=compliance_officer)
    services.offering_use_approve(facility=facility, offering=offering, approved_on=date(2022, 5, 2),
                                  user=compliance_officer)
    return term


def _assign(table, offering, officer):
    return services.table_offering_assign(table=table, offering=offering, user=officer)


def test_the_providers_source_is_registered():
    assert "providers" in readiness.sources()


def test_a_table_with_a_certified_offering_has_nothing_unmet(facility, usable, offering, table, compliance_officer):
    _assign(table, offering, compliance_officer)
    assert provider_unmet(facility, [table], at_noon(EXPIRES)) == {table.pk: []}


def test_a_table_with_no_provider_game_has_nothing_unmet(facility, table):
    assert provider_unmet(facility, [table], at_noon(EXPIRES)) == {table.pk: []}


@pytest.mark.parametrize("is_open", [False, True])
def test_the_day_after_expiry_with_no_renewal_received_the_table_shows_the_unmet(facility, usable, offering, table,
                                                                                compliance_officer, is_open):
    row = _assign(table, offering, compliance_officer)
    table.is_open = is_open
    table.save()
    lapsed = provider_unmet(facility, [table], at_noon(date(2026, 4, 2)))[table.pk]
    assert len(lapsed) == 1
    unmet = lapsed[0]
    assert (unmet.code, unmet.clause, unmet.short, unmet.who, unmet.overridable) == (
        f"provider:{row.pk}", "528.7(4)", "provider's game not usable", "the compliance officer", False)
    assert unmet.link == reverse("providers:detail", args=[offering.provider_id])
    assert "Table SB-7 carries" in unmet.words and "§ 528.7" in unmet.words and "Lapsed" in unmet.words
    assert "Take it off the table" in unmet.words and "record the provider's certification or renewal" in unmet.words
    state = readiness.tables_readiness(facility, [table], at_noon(date(2026, 4, 2)))[table.pk]
    assert f"provider:{row.pk}" in {u.code for u in state.unmet}
    assert state.verdict == ("breach" if is_open else "not-ready")


def test_the_gaming_day_of_the_instant_decides(facility, usable, offering, table, compliance_officer):
    """At 02:00 on 2 April the gaming day is still 1 April, the certification's last day."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    _assign(table, offering, compliance_officer)
    night = datetime(2026, 4, 2, 2, 0, tzinfo=ZoneInfo("America/New_York"))
    assert provider_unmet(facility, [table], night) == {table.pk: []}


def test_a_late_renewal_received_before_the_expiry_keeps_the_table_met(facility, usable, offering, table,
                                                                       compliance_officer):
    _assign(table, offering, compliance_officer)
    services.renewal_file(facility=facility, certification=usable, filed_on=date(2026, 3, 1),
                          user=compliance_officer)  # 31 days before the expiry: late (§ 528.4(b)), received
    assert provider_unmet(facility, [table], at_noon(date(2026, 9, 1))) == {table.pk: []}


def test_a_denial_makes_the_table_unmet_from_the_day_it_is_sent(facility, usable, offering, table, compliance_officer):
    _assign(table, offering, compliance_officer)
    services.renewal_file(facility=facility, certification=usable, filed_on=date(2026, 1, 5), user=compliance_officer)
    services.renewal_decide(facility=facility, certification=usable, decision="denied", decided_on=date(2026, 3, 2),
                            user=compliance_officer)
    assert provider_unmet(facility, [table], at_noon(date(2026, 3, 1))) == {table.pk: []}
    [unmet] = provider_unmet(facility, [table], at_noon(date(2026, 3, 2)))[table.pk]
    assert "denied" in unmet.words


def test_an_offering_taken_off_is_no_longer_asked(facility, usable, offering, table, compliance_officer):
    row = _assign(table, offering, compliance_officer)
    services.table_offering_remove(table_offering=row, user=compliance_officer)
    assert provider_unmet(facility, [table], at_noon(date(2026, 4, 2))) == {table.pk: []}


def test_the_number_of_queries_is_the_same_for_one_table_and_twenty(facility, usable, offering, compliance_officer):
    tables = [make_table(facility, "sic-bo", f"SB-{n:02d}") for n in range(20)]
    for table in tables:
        _assign(table, offering, compliance_officer)
    after = at_noon(date(2026, 4, 2))

    def count(subset):
        with CaptureQueriesContext(connection) as queries:
            found = provider_unmet(facility, subset, after)
        assert all(len(found[t.pk]) == 1 for t in subset)
        return len(queries)

    assert count(tables[:1]) == count(tables) <= 4
