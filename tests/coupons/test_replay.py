"""Replaying the ledger (coupons/replay.py): pure interval arithmetic, no database."""

from __future__ import annotations

from coupons.replay import Run, StateMap, differences


def _runs(state: StateMap) -> list[tuple[int, int, str]]:
    return [(run.first, run.last, run.state) for run in state]


def test_moves_split_and_replace_runs():
    state = StateMap()
    assert state.apply(1, 100, "", "received", 7) == []
    assert state.apply(1, 100, "received", "in_stock", 7) == []
    assert state.apply(11, 20, "in_stock", "issued", None) == []
    assert _runs(state) == [(1, 10, "in_stock"), (11, 20, "issued"), (21, 100, "in_stock")]
    assert state.apply(15, 15, "issued", "distributed", None) == []
    assert _runs(state) == [(1, 10, "in_stock"), (11, 14, "issued"), (15, 15, "distributed"), (16, 20, "issued"),
                            (21, 100, "in_stock")]


def test_a_move_from_the_wrong_state_or_of_serials_never_received_is_named():
    state = StateMap()
    state.apply(1, 10, "", "received", None)
    wrong = state.apply(5, 15, "issued", "distributed", None)
    assert [(run.first, run.last, run.state) for run in wrong] == [(5, 10, "received"), (11, 15, "")]
    assert [(r.first, r.last) for r in state.apply(8, 12, "", "received", None)] == [(8, 12)]


def test_differences_name_each_span_where_ledger_and_current_state_disagree():
    ledger = StateMap()
    ledger.apply(1, 100, "", "issued", None)
    current = [Run(1, 49, "issued", None), Run(50, 60, "distributed", None), Run(61, 100, "issued", None),
               Run(500, 600, "distributed", None)]
    found = [(first, last, a.state if a else None, b.state if b else None)
             for first, last, a, b in differences(ledger, current)]
    assert found == [(50, 60, "issued", "distributed"), (500, 600, None, "distributed")]
    assert list(differences(ledger, [Run(1, 100, "issued", None)])) == []
