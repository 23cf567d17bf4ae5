"""The machine's pace beside ``make bench``'s figures (bench/benchlib/pace.py, bench/run.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from benchlib.pace import pace, pace_words, slower_than  # noqa: E402


def _run_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pace_is_measured_on_this_machine() -> None:
    measured = pace()
    assert measured["python_ms"] > 0
    assert measured["postgres_ms"] is not None and measured["postgres_ms"] > 0, measured  # CI's PostgreSQL runs


def test_a_server_out_of_reach_leaves_the_python_pace() -> None:
    measured = pace("postgres://nobody@127.0.0.1:1")
    assert measured["python_ms"] > 0 and measured["postgres_ms"] is None and measured["postgres_error"]
    assert pace_words(measured).endswith("PostgreSQL not reached")


def test_slower_is_the_larger_ratio_and_unknown_without_both() -> None:
    before = {"python_ms": 300.0, "postgres_ms": 200.0}
    assert slower_than({"python_ms": 450.0, "postgres_ms": 500.0}, before) == 2.5
    assert slower_than({"python_ms": 150.0, "postgres_ms": 100.0}, before) == 0.5
    assert slower_than({"python_ms": 600.0, "postgres_ms": None}, before) == 2.0
    assert slower_than(None, before) is None and slower_than(before, None) is None


def test_the_summary_says_the_pace_and_names_a_slower_machine() -> None:
    run = _run_module()
    paces = {"start": {"python_ms": 600.0, "postgres_ms": 500.0}, "end": {"python_ms": 640.0, "postgres_ms": 520.0}}
    words, slower = run._pace_said(paces, {"pace": {"end": {"python_ms": 320.0, "postgres_ms": 260.0}}})
    assert slower == 2.0
    assert "Python 600 ms, PostgreSQL 500 ms before the benches" in words
    assert "at the previous run Python 320 ms, PostgreSQL 260 ms (2.00 times the previous run's time)" in words
    words, slower = run._pace_said(paces, {})  # the first run: nothing to compare with
    assert slower is None and "previous" not in words
