"""The linker finds the rows no link covers by probing the gaps between the links' runs of ids
(``Coverage.gaps``, ``compliance.chain.rows.rows_in_spans``), not by reading every id above the floor: the same rows
as reading them all, on random coverings of random ids."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

import pytest

from compliance.chain import chain_link, chain_verify
from compliance.chain.link import LAST_ID, Coverage
from compliance.chain.rows import rows_in_spans
from compliance.models import AuditEvent, ChainLink
from compliance.models.chain import decode_ids


def _uncovered_runs(ids: list[int], coverage: Coverage) -> list[tuple[int, int]]:
    """What the linker did before: every id above the floor read, the covered ones skipped, runs of the rest."""
    runs: list[list[int]] = []
    broken = True
    for pk in ids:
        if coverage.covers(pk):
            broken = True
        elif broken or not runs:
            runs.append([pk, pk])
            broken = False
        else:
            runs[-1][1] = pk
    return [(first, last) for first, last in runs]


def _within(ids: list[int], spans: list[tuple[int, int]]) -> list[int]:
    return [pk for pk in ids if any(first <= pk <= last for first, last in spans)]


def _random_runs(rng: random.Random, top: int) -> list[tuple[int, int]]:
    runs = []
    for _ in range(rng.randrange(0, 8)):
        first = rng.randrange(1, top)
        runs.append((first, min(top + 5, first + rng.randrange(0, 12))))
    return runs


def test_the_gaps_are_exactly_the_ids_no_run_covers() -> None:
    rng = random.Random(27)
    for _ in range(2000):
        runs = _random_runs(rng, 60)
        above, through = rng.randrange(0, 40), rng.randrange(0, 70)
        gaps = Coverage(runs).gaps(above, through)
        covered = {pk for first, last in runs for pk in range(first, last + 1)}
        assert [pk for first, last in gaps for pk in range(first, last + 1)] == [
            pk for pk in range(above + 1, through + 1) if pk not in covered], (runs, above, through, gaps)
        assert all(last + 1 < first for (_, last), (first, _) in pairwise(gaps))  # apart
    assert Coverage([]).gaps(5) == [(6, LAST_ID)]
    assert Coverage([(1, 10)]).gaps(0, 10) == []


@pytest.mark.django_db
def test_the_rows_waiting_are_those_reading_every_id_found(facility: Any, compliance_officer: Any) -> None:
    for n in range(40):
        AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason=f"gap {n}")
    ids = sorted(AuditEvent.objects.values_list("pk", flat=True))
    rng = random.Random(7)
    for _ in range(60):
        picked = [pk for pk in ids if rng.random() < 0.6]  # rows missing from the id space, as after a rollback
        if not picked:
            continue
        low, high = picked[0], picked[-1]
        runs = [(first, min(first + rng.randrange(0, 6), high)) for first in rng.sample(picked, min(4, len(picked)))]
        above = rng.choice([0, low - 1, *picked[:5]])
        through = rng.choice([LAST_ID, high, *picked[-5:]])
        everything = [pk for pk in ids if above < pk <= through]
        coverage = Coverage([(max(first, above + 1), last) for first, last in runs if last > above])
        expected = _uncovered_runs(everything, Coverage([(first, last) for first, last in coverage.runs]))
        found = coverage.waiting(AuditEvent, above, through)
        assert _within(everything, found) == _within(everything, expected)  # the same rows read
        assert [first for first, _ in found][:1] == [first for first, _ in expected][:1]  # the same first one
    assert rows_in_spans(AuditEvent, [(ids[-1] + 1, LAST_ID)]) == []
    assert rows_in_spans(AuditEvent, [(ids[0], ids[0])]) == [(ids[0], ids[0])]


@pytest.mark.django_db
def test_a_row_in_a_gap_between_linked_rows_is_linked_once(facility: Any, compliance_officer: Any,
                                                            monkeypatch: Any) -> None:
    """Rows linked in links of two (so the covered runs have gaps where rows wait), then the rest: each row once."""
    from compliance.chain import link

    for n in range(9):
        AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason=f"first {n}")
    monkeypatch.setattr(link, "BATCH", 2)
    chain_link(AuditEvent)
    for n in range(5):
        AuditEvent.log(facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer, reason=f"then {n}")
    chain_link(AuditEvent)
    assert chain_link(AuditEvent) == 0  # nothing waits
    linked = [pk for ids in ChainLink.objects.filter(model="compliance.AuditEvent").values_list("ids", flat=True)
              for pk in decode_ids(ids)]
    assert sorted(linked) == sorted(AuditEvent.objects.values_list("pk", flat=True))
    assert len(linked) == len(set(linked))
    assert chain_verify().intact
