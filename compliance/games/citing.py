"""The clauses a game's figures rest on, as pages and documents cite them.

The engine cites the rules that define each wager (§ 539.3, § 577.6, § 668a.3(e), ...); the citation catalogue
(``compliance.clause_rows``) holds the obligations of ``shared/CLAUSES.md``. A page's footer and a PDF's frame
cite what the catalogue resolves, and always § 521.4(1)(ii) (true odds, payout odds and house advantage of each
wager); every clause the engine names is printed beside the figures as written."""

from __future__ import annotations

from collections.abc import Iterable

from compliance.citations import cite

__all__ = ["FILING", "catalogued", "clause_words"]

FILING = "521.4(1)(ii)"


def catalogued(refs: Iterable[str]) -> tuple[str, ...]:
    found = []
    for ref in refs:
        try:
            cite(ref)
        except KeyError:
            continue
        found.append(ref)
    return (*dict.fromkeys(found), FILING)


def clause_words(refs: Iterable[str]) -> str:
    return ", ".join(f"§ {ref}" for ref in dict.fromkeys(refs))
