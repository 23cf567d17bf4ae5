"""Benchmark: what the web request does with a 200,000-patron mailing list, against the job that reads it
(issue 22, item 6: the list used to be parsed and inserted inside the request, 91 s).

The request only checks what can be refused at once (``coupons.mailing_csv.check_patron_file``: size, UTF-8, a
NUL, the header) and keeps the bytes; the Celery job parses every line (``parse_patron_list``) and inserts the
recipients. Pure Python, no database: the figure is the request's share, the baseline the job's parse of the same
file in the same run.

    .venv/bin/python bench/mailing_upload_bench.py            # 200,000 patrons
    .venv/bin/python bench/mailing_upload_bench.py --patrons 20000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
TARGET_MS = 500  # the request's share: well inside any worker timeout, whatever the list's length


def _file(patrons: int) -> bytes:
    lines = ["patron_id,first_name,middle_name,last_name,date_of_birth,address,city,state,zip"]
    lines += [f"P-{i},Ann,,Jones{i},1985-02-03,{i} Market St,Lancaster,PA,17601" for i in range(patrons)]
    return ("\n".join(lines) + "\n").encode()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--patrons", type=int, default=200_000)
    args, _ = parser.parse_known_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
    import django

    django.setup()
    from coupons.mailing_csv import check_patron_file, parse_patron_list

    data = _file(args.patrons)
    started = time.perf_counter()
    check_patron_file(data)
    request_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    read = len(parse_patron_list(data))
    job_ms = (time.perf_counter() - started) * 1000
    result = "PASS" if request_ms < TARGET_MS else "MISS"
    print(f"{'figure':44} {'target':>9} {'measured':>9} {'baseline':>26} {'ratio':>7} result")
    print(f"{f'mailing upload, {read:,} patrons ({len(data) / 1e6:.1f} MB): request':44} {f'< {TARGET_MS} ms':>9} "
          f"{request_ms:>6.0f} ms {f'job parse {job_ms:,.0f} ms':>26} {request_ms / job_ms:>7.3f} {result}")
    from benchlib.table import row, save

    save("mailing_upload", [row(f"mailing upload, {read:,} patrons: the request's share", f"< {TARGET_MS} ms",
                                f"{request_ms:.0f} ms", f"the job's parse {job_ms:,.0f} ms", request_ms / job_ms,
                                result == "PASS")])
    return 0 if result == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
