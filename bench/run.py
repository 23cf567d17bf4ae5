"""Run every benchmark in bench/ (files named *_bench.py), each in its own process; print their figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("*_bench.py"))
    failures = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        result = subprocess.run([sys.executable, str(script), *sys.argv[1:]], cwd=HERE.parent, check=False)
        failures += result.returncode != 0
    if not scripts:
        print("no benchmarks found")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
