"""Linking's work against the rows it links, in CPU seconds (this process and its PostgreSQL backend together),
which the machine's other load does not change as it changes wall-clock seconds.

On a database the audit chain bench kept (``audit_chain_bench.py --keep``): for each size, largest first, the audit
events are cut to that many rows (the rest deleted, as the owner, triggers off: the database is spent), every link
removed, and the rows linked anew, twice; the cheaper run is printed. Linear linking costs the same per row at
every size.

    .venv/bin/python bench/audit_chain_bench.py --database bench_chain --scale 0.3 --keep
    .venv/bin/python bench/audit_chain_link_cpu.py --database bench_chain 1800000 360000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
SERVER = "postgres://postgres@127.0.0.1:5432"


def _backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _execute(*statements: str, params: list[Any] | None = None) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement, params if "%s" in statement else None)


def _unlink() -> None:
    _execute("ALTER TABLE compliance_chainlink DISABLE TRIGGER USER", "TRUNCATE compliance_chainlink",
             "ALTER TABLE compliance_chainlink ENABLE TRIGGER USER")


def _cut(rows: int) -> None:
    _unlink()
    _execute("ALTER TABLE compliance_auditevent DISABLE TRIGGER USER",
             "DELETE FROM compliance_auditevent WHERE id > (SELECT id FROM compliance_auditevent ORDER BY id "
             "OFFSET %s LIMIT 1)", "ALTER TABLE compliance_auditevent ENABLE TRIGGER USER", "VACUUM ANALYZE "
             "compliance_auditevent", params=[rows - 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="a database the audit chain bench kept (it is spent)")
    parser.add_argument("sizes", nargs="+", type=int, help="row counts, largest first")
    arguments = parser.parse_args()
    os.environ["DATABASE_URL"] = f"{os.environ.get('BENCH_SERVER', SERVER)}/{arguments.database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    os.environ["DEBUG"] = "0"
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.db import connection

    from compliance.chain import chain_link
    from compliance.models import AuditEvent

    for size in sorted(arguments.sizes, reverse=True):
        _cut(size)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid(), count(*) FROM compliance_auditevent")
            pid, count = cursor.fetchone()
        runs = []
        for _ in range(2):
            _unlink()
            wall, python, backend = time.perf_counter(), time.process_time(), _backend_cpu(pid)
            chain_link(AuditEvent)
            runs.append((time.perf_counter() - wall, time.process_time() - python, _backend_cpu(pid) - backend))
        wall, python, backend = min(runs, key=lambda run: run[1] + run[2])
        print(f"{count:>12,} rows linked: wall {wall:6.1f} s, CPU {python + backend:6.1f} s (Python {python:.1f}, "
              f"PostgreSQL {backend:.1f}): {(python + backend) / count * 1e6:.1f} µs a row", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
