"""The redemption benchmark (bench/redemption_bench.py), by part: ``database`` (settings, the database and
its children), ``children`` (seed and in-process profile), ``load`` (the HTTP client, lanes, loops,
figures), ``cpu`` (CPU accounting and the bare-SQL baseline), ``server`` (gunicorn and one measured run)."""

__all__: list[str] = []
