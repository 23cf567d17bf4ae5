"""What the benchmarks in bench/ share: a database of their own (:mod:`benchlib.database`), and the parts
of the redemption benchmark (:mod:`benchlib.redemption`). The scripts put bench/ on ``sys.path`` (Python
does: it is the script's directory), so they import ``benchlib`` as a top-level package."""

__all__: list[str] = []
