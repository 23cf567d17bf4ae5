"""``make bench``: every benchmark of bench/ (files named *_bench.py), each in a process of its own, on PostgreSQL,
then ONE table of all their figures — figure, target, measured, the baseline measured in the same run, ratio,
PASS/MISS — beside each figure's measurement in the previous run (a regression shows), written as JSON to
``var/bench/summary.json`` (the previous run kept as ``summary.previous.json``) and as Markdown to
``var/bench/summary.md`` (what the README shows), with the machine it ran on.

    .venv/bin/python bench/run.py                       # every figure at its size (about an hour and a half)
    .venv/bin/python bench/run.py --quick               # each at a fraction of its size (a few minutes)
    .venv/bin/python bench/run.py --only pages,games    # some of them

The pages bench measures the generated casino (``manage.py generate_casino``) in ``--casino`` (default
``bench_casino``), which it generates first when the database is missing (``--casino-days`` gaming days).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib.pace import SLOWER, pace, pace_words, slower_than  # noqa: E402
from benchlib.table import RESULTS, machine, print_table  # noqa: E402

SERVER = os.environ.get("BENCH_SERVER", "postgres://postgres@127.0.0.1:5432")
# Benches that take an empty database from the environment: each gets a fresh PostgreSQL one (they default to SQLite).
FRESH = {"coupons": "BENCH_DATABASE_URL", "staffing": "BENCH_DATABASE_URL", "exclusion": "BENCH_DATABASE_URL",
         "equipment": "DATABASE_URL"}
QUICK = {"audit_chain": ["--scale", "0.02"], "audit_page": ["--rows", "200000", "--repeats", "15"],
         "reports": ["--rows", "500000", "--reps", "3"], "equipment": ["--tables", "200", "--days", "30"],
         "redemption": ["--duration", "5", "--screen", "3"], "mailing_upload": ["--patrons", "20000"],
         "staffing": ["--runs", "5"], "pages": ["--repeats", "8"], "floor_load": ["--minutes", "1"]}


def _fresh(name: str) -> str:
    import psycopg
    from psycopg import sql

    database = f"bench_run_{name}"
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    return f"{SERVER}/{database}"


def _run(script: Path, run_id: str, arguments: argparse.Namespace) -> tuple[int, float]:
    name = script.stem.removesuffix("_bench")
    environment = dict(os.environ, BENCH_RUN=run_id)
    if name in FRESH:
        environment[FRESH[name]] = _fresh(name)
    extra = QUICK.get(name, []) if arguments.quick else []
    if name == "pages":
        extra = [*extra, "--database", arguments.casino, "--days", str(arguments.casino_days)]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(script), *extra], cwd=HERE.parent, env=environment, check=False)
    return done.returncode, time.perf_counter() - started


def _rows(run_id: str) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(RESULTS.glob("*.json")):
        if path.name.startswith("summary") or path.name.endswith(".previous.json"):
            continue
        result = json.loads(path.read_text())
        if result.get("run") == run_id:
            rows += [dict(figure, bench=result["bench"]) for figure in result["figures"]]
    return rows


def _previous() -> dict[str, Any]:
    summary = RESULTS / "summary.json"
    return json.loads(summary.read_text()) if summary.exists() else {}


def _with_previous(rows: list[dict[str, Any]], previous: dict[str, Any]) -> list[dict[str, Any]]:
    before = {r["figure"]: r for r in previous.get("figures", [])}
    for row in rows:
        was = before.get(row["figure"])
        row["previous"] = f"{was['measured']} ({was['result']})" if was else ""
        row["regressed"] = bool(was and was["result"] == "PASS" and row["result"] == "MISS")
    return rows


def _pace_said(paces: dict[str, Any], previous: dict[str, Any]) -> tuple[str, float | None]:
    """The machine's pace before and after the benches in words, and how many times slower it ran than at the
    previous run (benchlib/pace.py)."""
    slower = slower_than(paces.get("end") or paces.get("start"), (previous.get("pace") or {}).get("end"))
    words = (f"the machine's pace (benchlib/pace.py, lower is faster): {pace_words(paces.get('start'))} before the "
             f"benches, {pace_words(paces.get('end'))} after")
    if previous.get("pace"):
        words += f"; at the previous run {pace_words(previous['pace'].get('end'))}"
    if slower is not None:
        words += f" ({slower:.2f} times the previous run's time)"
    return words, slower


def _save(rows: list[dict[str, Any]], arguments: argparse.Namespace, seconds: float, paces: dict[str, Any],
          pace_said: str) -> None:
    summary = RESULTS / "summary.json"
    if summary.exists():
        summary.with_name("summary.previous.json").write_text(summary.read_text())
    meta = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "quick": arguments.quick,
            "seconds": round(seconds), "pace": paces}
    summary.write_text(json.dumps({**meta, "figures": rows}, indent=1, ensure_ascii=False))
    columns = ("figure", "target", "measured", "baseline", "ratio", "result")
    lines = [f"Measured {meta['when']} on {meta['machine']}{' (--quick: reduced sizes)' if arguments.quick else ''}; "
             f"`make bench`, {seconds / 60:.0f} minutes; {pace_said}.", "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(r.get(c) if r.get(c) is not None else "—").replace("|", "/") for c in columns)
              + " |" for r in rows]
    (RESULTS / "summary.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each bench at a fraction of its size")
    parser.add_argument("--only", default="", help="comma-separated bench names (file names without _bench.py)")
    parser.add_argument("--casino", default="bench_casino", help="the generated casino the pages bench measures")
    parser.add_argument("--casino-days", type=int, default=365, help="gaming days to generate when it is missing")
    arguments = parser.parse_args()
    wanted = {name.strip() for name in arguments.only.split(",") if name.strip()}
    scripts = [s for s in sorted(HERE.glob("*_bench.py")) if not wanted or s.stem.removesuffix("_bench") in wanted]
    run_id, began, failures = uuid.uuid4().hex[:12], time.perf_counter(), []
    paces = {"start": pace()}
    print(f"the machine's pace before the benches (lower is faster): {pace_words(paces['start'])}", flush=True)
    for script in scripts:
        print(f"== {script.name}", flush=True)
        code, seconds = _run(script, run_id, arguments)
        print(f"== {script.name}: exit {code}, {seconds:.0f} s", flush=True)
        if code != 0:
            failures.append(script.name)
    paces["end"] = pace()
    previous = _previous()
    rows = _with_previous(_rows(run_id), previous)
    seconds = time.perf_counter() - began
    pace_said, slower = _pace_said(paces, previous)
    print(f"\nmake bench: {len(rows)} figures from {len(scripts)} benches on {machine()}, {seconds / 60:.0f} minutes;"
          f" {pace_said}")
    print_table(rows, ("figure", "target", "measured", "baseline", "ratio", "result", "previous"))
    regressed = [r["figure"] for r in rows if r["regressed"]]
    if regressed:
        print("REGRESSED since the previous run: " + "; ".join(regressed)
              + (f" (the machine ran {slower:.2f} times slower than at the previous run: run again before blaming the "
                 "code)" if slower is not None and slower >= SLOWER else ""))
    _save(rows, arguments, seconds, paces, pace_said)
    print(f"written: {RESULTS / 'summary.json'}, {RESULTS / 'summary.md'}")
    if failures:
        print("benches that missed a target or failed: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
