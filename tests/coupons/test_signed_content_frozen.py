"""The rows of a signed coupon document's content, frozen with it by PostgreSQL (issue 21, ``signed_part_of``).

Marketing's reconciliation form (§ 525.21(j)) is signed with its figures, finance's monthly inventory
(§ 525.21(n)) with its counts: once signed, the application's own database login can neither change, add nor
delete one of them, nor move one onto another record. Each statement below is what that login could send by
hand.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection

from coupons import services
from coupons.models import CouponInventory, ReconciliationForm
from tests.compliance.attack import refused
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own guarantees")]

GUARD_REFUSAL = psycopg.errors.IntegrityConstraintViolation


@pytest.fixture
def signed_reconciliation(program: Any, receive: Any, issue: Any, marketing_supervisor: Any) -> ReconciliationForm:
    receive(1, 100)
    issue(1, 10)
    return services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )


@pytest.fixture
def signed_inventory(program: Any, receive: Any, finance_staff: Any) -> CouponInventory:
    receive(1, 100)
    return services.inventory_record(facility=program.facility, counted={program.series: [(1, 100)]},
                                     user=finance_staff, password=PASSWORD)


def test_a_signed_reconciliation_forms_figures_are_frozen(signed_reconciliation):
    form = signed_reconciliation
    figure = form.figures.get()
    assert "part of signed" in refused(
        "UPDATE coupons_reconciliationfigure SET distributed = distributed + 5 WHERE id = %s", [figure.pk],
        error=GUARD_REFUSAL)
    assert "part of signed" in refused("DELETE FROM coupons_reconciliationfigure WHERE id = %s", [figure.pk],
                                       error=GUARD_REFUSAL)
    assert "nothing is added" in refused(
        "INSERT INTO coupons_reconciliationfigure (form_id, denomination_cents, carried_in, received, distributed,"
        " voided, returned, remaining_expected, remaining_counted)"
        " SELECT form_id, 500, 0, 0, 0, 0, 0, 0, 0 FROM coupons_reconciliationfigure WHERE id = %s",
        [figure.pk], error=GUARD_REFUSAL)
    figure.refresh_from_db()
    assert figure.distributed == 0 and form.figures.count() == 1
    assert not ReconciliationForm.objects.get(pk=form.pk).altered_since_signed


def test_a_signed_inventorys_counts_are_frozen(signed_inventory):
    count = signed_inventory.counts.get()
    assert "part of signed" in refused(
        "UPDATE coupons_inventorycount SET counted_quantity = 90, counted_ranges = '' WHERE id = %s", [count.pk],
        error=GUARD_REFUSAL)
    assert "part of signed" in refused("DELETE FROM coupons_inventorycount WHERE id = %s", [count.pk],
                                       error=GUARD_REFUSAL)
    count.refresh_from_db()
    assert count.counted_quantity == 100
    assert not CouponInventory.objects.get(pk=signed_inventory.pk).altered_since_signed


def test_a_count_cannot_be_moved_onto_an_unsigned_inventory_either(signed_inventory, as_user, finance_staff):
    count = signed_inventory.counts.get()
    with as_user(finance_staff):
        draft = CouponInventory.objects.create(facility=signed_inventory.facility,
                                               gaming_date=signed_inventory.gaming_date)
    # The row's record before the change is signed: moving it away rewrites that record's content.
    assert "part of signed" in refused("UPDATE coupons_inventorycount SET inventory_id = %s WHERE id = %s",
                                       [draft.pk, count.pk], error=GUARD_REFUSAL)
    assert signed_inventory.counts.count() == 1
