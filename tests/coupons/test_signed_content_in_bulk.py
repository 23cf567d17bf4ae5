"""A page of coupon documents checked against their signatures in a query a kind of row, not a query a document
(``CouponDocument.read_content_of``, used by ``compliance.chain.altered_records``: the coupon ledger's page read
each document's ledger lines, figures or counts one document at a time, 13 of its 44 queries on a generated year).

Read in bulk or one by one, the signed content is the same bytes — so every signature given before still matches,
and a row changed behind the application's back is still found, on the document it belongs to and no other."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compliance.chain.integrity import altered_records
from compliance.testing import behind_the_applications_back
from coupons import services
from coupons.models import CouponInventory, CouponReceipt, FinanceDayProcessing, LedgerLine, ReconciliationForm
from coupons.models.documents import CouponDocument
from tests.coupons.conftest import PASSWORD

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering as the owner needs PostgreSQL")]


@pytest.fixture
def documents(program: Any, receive: Any, returned_day: ReconciliationForm, finance_staff: Any) -> list[Any]:
    """Receipts, an issuance, marketing's form with its figures, a return and an inventory with its counts."""
    receive(101, 200)
    receive(201, 300)
    inventory = services.inventory_record(facility=program.facility, counted={program.series: [(1, 300)]},
                                          user=finance_staff, password=PASSWORD)
    records = [record for model in apps.get_models() if issubclass(model, CouponDocument)
               for record in model.objects.all()]
    assert returned_day in records and inventory in records and len(records) >= 7
    return records


def _keys(records: list[Any]) -> list[tuple[int, int]]:
    return [(ContentType.objects.get_for_model(r).pk, r.pk) for r in records]


def test_the_content_read_in_bulk_is_the_content_read_alone_and_every_signature_still_matches(documents):
    alone = {(type(r), r.pk): r.content_hash() for r in documents}
    for model in {type(r) for r in documents}:
        fresh = list(model.objects.filter(pk__in=[r.pk for r in documents if type(r) is model]))
        model.read_content_of(fresh)
        assert {(model, r.pk): r.content_hash() for r in fresh} == {k: v for k, v in alone.items() if k[0] is model}
    assert altered_records(_keys(documents)) == set()


def test_three_receipts_are_checked_in_the_queries_of_one(documents):
    receipts = [r for r in documents if isinstance(r, CouponReceipt)]
    assert len(receipts) == 3
    counts = []
    for some in (receipts[:1], receipts):
        with CaptureQueriesContext(connection) as captured:
            assert altered_records(_keys(some)) == set()
        counts.append(len(captured))
    assert counts[0] == counts[1], counts


def test_a_row_changed_behind_the_apps_back_marks_its_own_document_only(documents):
    receipts = [r for r in documents if isinstance(r, CouponReceipt)]
    form = next(r for r in documents if isinstance(r, ReconciliationForm))
    inventory = next(r for r in documents if isinstance(r, CouponInventory))
    line = LedgerLine.objects.filter(document_id=receipts[1].pk,
                                     document_type=ContentType.objects.get_for_model(CouponReceipt)).first()
    behind_the_applications_back("UPDATE coupons_ledgerline SET reason = 'moved' WHERE id = %s", [line.pk])
    behind_the_applications_back("UPDATE coupons_reconciliationfigure SET distributed = distributed + 1"
                                 " WHERE form_id = %s", [form.pk])
    behind_the_applications_back("UPDATE coupons_inventorycount SET counted_ranges = '1-299' WHERE inventory_id = %s",
                                 [inventory.pk])
    assert altered_records(_keys(documents)) == set(_keys([receipts[1], form, inventory]))


def test_what_was_read_for_a_page_is_used_once_then_read_again(documents):
    form = ReconciliationForm.objects.get(pk=next(r for r in documents if isinstance(r, ReconciliationForm)).pk)
    ReconciliationForm.read_content_of([form])
    signed = form.content_hash()
    behind_the_applications_back("UPDATE coupons_reconciliationfigure SET returned = returned + 1 WHERE form_id = %s",
                                 [form.pk])
    assert form.content_hash() != signed  # not the rows kept from before the change


def test_a_processing_with_no_figures_leaves_them_out_either_way(documents):
    # Processings signed before the figures existed have none, and their content has no "figures" key.
    unsaved = FinanceDayProcessing()
    assert "figures" not in unsaved.signable_content()
