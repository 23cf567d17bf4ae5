"""The providers' part of a table's readiness (``compliance.readiness``): § 528.7, checked continuously. Every
provider game, wager or feature on a table must be usable on the facility's gaming day of the instant asked —
the provider certified (§ 528.4) or permitted before certification (§ 528.8), the Gaming Laboratory's approval
and the Board's approval for use here — or the table may not open, and an open table carrying it is in breach.
A certification lapses by the passing of time alone (the day after its expiry with no renewal received), so the
answer is read for the instant asked, not kept. Four queries for any number of tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.urls import reverse

from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.providers import selectors
from compliance.readiness import Unmet

__all__ = ["provider_unmet"]

SHORT = "provider's game not usable"
WHO = "the compliance officer"


def _unmet(use: selectors.TableUse) -> Unmet:
    row = use.table_offering
    offering = row.offering
    remedies = "; or ".join(p.remedy for p in use.problems)
    words = (f"Table {row.table.number} carries {offering}, which may not be used (§ 528.7): "
             + "; ".join(p.words for p in use.problems)
             + f". Take it off the table (Provider games at the tables), or {remedies} on "
               f"{offering.provider.name}'s page.")
    return Unmet(code=f"provider:{row.pk}", clause=use.problems[0].clause, words=words, short=SHORT, who=WHO,
                 link=reverse("providers:detail", args=[offering.provider_id]))


def provider_unmet(facility: Facility, tables: Sequence[GamingTable], at: datetime) -> dict[int, list[Unmet]]:
    """For each table, an ``Unmet`` for every provider offering on it that § 528.7 does not allow on the gaming
    day of ``at``; the same for a closed table (it may not open) and an open one (in breach)."""
    day = gaming_day(facility, at)
    return {table_id: [_unmet(use) for use in uses if use.problems]
            for table_id, uses in selectors.table_uses(facility, tables, day).items()}
