"""The one shape of a benchmark's result (issue 27, item 2): rows of figure, target, measured, baseline (measured in
the same run), ratio and PASS/MISS, printed as a table and kept as JSON under ``var/bench/`` with the previous run
beside it, so ``make bench`` (bench/run.py) can print every bench's rows as one table and show a regression."""

from __future__ import annotations

import json
import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["HEADER", "RESULTS", "machine", "print_table", "row", "save"]

RESULTS = Path(__file__).resolve().parent.parent.parent / "var" / "bench"
HEADER = ("figure", "target", "measured", "baseline", "ratio", "result")


def row(figure: str, target: str, measured: str, baseline: str, ratio: float | None, passed: bool) -> dict[str, Any]:
    return {"figure": figure, "target": target, "measured": measured, "baseline": baseline,
            "ratio": None if ratio is None else round(ratio, 2), "result": "PASS" if passed else "MISS"}


def _cell(value: Any) -> str:
    return "—" if value is None or value == "" else str(value)


def print_table(rows: list[dict[str, Any]], columns: tuple[str, ...] = HEADER) -> None:
    lines = [dict(zip(columns, columns, strict=True)), *rows]
    widths = [max(len(_cell(line.get(c))) for line in lines) for c in columns]
    for line in lines:
        print("  ".join(_cell(line.get(c)).ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(), flush=True)


def machine() -> str:
    """The machine a figure was measured on, in words."""
    memory = ""
    try:
        kib = int(next(line for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal")).split()[1])
        memory = f", {kib / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def save(name: str, rows: list[dict[str, Any]], **meta: Any) -> Path:
    """Write ``var/bench/<name>.json`` (the previous run kept as ``<name>.previous.json``); ``BENCH_RUN`` (set by
    bench/run.py) stamps the run it belongs to."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    if path.exists():
        path.with_name(f"{name}.previous.json").write_text(path.read_text())
    path.write_text(json.dumps({"bench": name, "run": os.environ.get("BENCH_RUN", ""),
                                "when": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(),
                                **meta, "figures": rows}, indent=1, ensure_ascii=False))
    return path
