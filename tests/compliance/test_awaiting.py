"""The dashboard's "awaiting your signature" reads only the records from the first one not settled for good
(compliance.awaiting, issue 27): the same list as reading every record, however the records and signatures come."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from compliance import awaiting
from compliance.selectors import records_awaiting_signature
from compliance.services import record_correct, signature_sign
from tests.factories import make_person
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db


def _listed(user: Any, facility: Any) -> list[tuple[int, str]]:
    return [(record.pk, requirement.slot) for record, requirement in records_awaiting_signature(user, facility)
            if isinstance(record, TwoPersonForm)]


def _every_record_read(user: Any, facility: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    with monkeypatch.context() as patched:
        patched.setattr(awaiting, "unsettled_from", lambda models, facility: dict.fromkeys(models, 0))
        return _listed(user, facility)


@pytest.mark.parametrize("seed", range(4))
def test_the_list_is_the_list_of_every_record_however_they_come(seed, facility, marketing_supervisor,
                                                                 finance_supervisor, password, monkeypatch):
    """Records created, signed in either order and corrected at random, days apart; after each step every
    reader's list, with the kept id (never cleared within the test), is the list read from every record."""
    from compliance.roles import Role

    second_supervisor = make_person(Role.MARKETING_SUPERVISOR, facility)
    readers = [marketing_supervisor, finance_supervisor, second_supervisor]
    chance = random.Random(seed)
    forms: list[TwoPersonForm] = []
    start = timezone.now() - timedelta(days=30)
    for step in range(36):
        with time_machine.travel(start + timedelta(hours=20 * step), tick=False):
            action = chance.choice(["create", "create", "sign", "sign", "sign", "correct"])
            if action == "create" or not forms:
                forms.append(TwoPersonForm.objects.create(facility=facility, note=f"step {step}", quantity=step))
            elif action == "sign":
                form = chance.choice(forms)
                slot = chance.choice(["prepared", "authorized"])
                signer = chance.choice([marketing_supervisor, second_supervisor])
                if slot == "authorized" and chance.random() < 0.5:
                    signer = finance_supervisor
                given = {(s.slot, s.signer_id) for s in form.signature_list()}
                if slot not in {s for s, _ in given} and signer.pk not in {who for _, who in given}:
                    signature_sign(record=form, slot=slot, user=signer, password=password)
            else:
                current = [TwoPersonForm.objects.get(pk=f.pk) for f in forms]  # as saved, corrections included
                signed = [f for f in current if f.is_signed() and not f.is_superseded]
                if signed:
                    original = chance.choice(signed)
                    forms.append(record_correct(original=original, reason="miscounted", user=marketing_supervisor,
                                                changes={"quantity": original.quantity + 1}))
            for reader in readers:
                assert _listed(reader, facility) == _every_record_read(reader, facility, monkeypatch), (seed, step)


def test_a_record_settled_long_ago_is_not_read_again_and_a_new_one_is_seen_at_once(
        facility, marketing_supervisor, finance_supervisor, password):
    with time_machine.travel(timezone.now() - timedelta(days=3), tick=False):
        old = TwoPersonForm.objects.create(facility=facility, note="settled", quantity=1)
        signature_sign(record=old, slot="prepared", user=marketing_supervisor, password=password)
        signature_sign(record=old, slot="authorized", user=finance_supervisor, password=password)
    with CaptureQueriesContext(connection) as queries:
        assert _listed(marketing_supervisor, facility) == []
    assert awaiting.settled_below(TwoPersonForm, facility) == old.pk + 1
    table = TwoPersonForm._meta.db_table
    asked = [q["sql"] for q in queries.captured_queries if table in q["sql"]]
    assert len(asked) == 2 and "MIN" in asked[0].upper()  # the id read, then the type not asked at all
    with CaptureQueriesContext(connection) as queries:
        assert _listed(marketing_supervisor, facility) == []
    assert [q["sql"] for q in queries.captured_queries if table in q["sql"]] == asked[1:]  # only its newest id
    fresh = TwoPersonForm.objects.create(facility=facility, note="new", quantity=2)  # the kept id still below it
    assert _listed(marketing_supervisor, facility) == [(fresh.pk, "prepared"), (fresh.pk, "authorized")]
    with CaptureQueriesContext(connection) as queries:
        awaiting.settled_below(TwoPersonForm, facility)
    assert len(queries.captured_queries) == 0  # kept a minute


def test_a_record_of_the_last_day_counts_as_unsettled_whatever_its_signatures(
        facility, marketing_supervisor, finance_supervisor, password):
    """A record of a transaction still open when the id is read could commit below it: the last day's records
    are never below it."""
    form = TwoPersonForm.objects.create(facility=facility, note="today", quantity=1)
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    signature_sign(record=form, slot="authorized", user=finance_supervisor, password=password)
    assert awaiting.settled_below(TwoPersonForm, facility) == form.pk


def test_a_corrected_record_is_settled(facility, marketing_supervisor, password):
    with time_machine.travel(timezone.now() - timedelta(days=3), tick=False):
        original = TwoPersonForm.objects.create(facility=facility, note="wrong", quantity=1)
        signature_sign(record=original, slot="prepared", user=marketing_supervisor, password=password)
        correction = record_correct(original=original, reason="miscounted", user=marketing_supervisor,
                                    changes={"quantity": 2})
    assert awaiting.settled_below(TwoPersonForm, facility) == correction.pk
    assert _listed(marketing_supervisor, facility) == [(correction.pk, "prepared"), (correction.pk, "authorized")]
