"""The foundation's part of a generated casino (``manage.py generate_casino``): the facility, its people (the demo's,
:mod:`compliance.demo`) and a floor of the plan's number of tables, before the apps' parts run."""

from __future__ import annotations

from compliance.demo import DEMO_PEOPLE, demo_seed
from compliance.models import Game, GamingTable, regulated_bulk_create
from compliance.roles import Role
from compliance.scale import ScalePlan
from compliance.selectors import people_holding

__all__ = ["FLOOR_MIX", "floor_scale_seed"]

# The floor of a large casino, by share of its tables: the coupon games, the dice games of Subpart K and Asia Poker.
FLOOR_MIX = (("blackjack", 0.35), ("craps", 0.15), ("roulette", 0.15), ("three-dice-football", 0.07),
             ("high-roll-dice", 0.07), ("props-and-hops", 0.05), ("sic-bo", 0.08), ("asia-poker", 0.08))


def _numbers(count: int) -> list[str]:
    """Each game's share of ``count`` tables, largest remainders first so the shares add up to ``count``."""
    shares = [(code, share * count) for code, share in FLOOR_MIX]
    whole = {code: int(share) for code, share in shares}
    for code, _share in sorted(shares, key=lambda pair: pair[1] - int(pair[1]), reverse=True)[:count - sum(
            whole.values())]:
        whole[code] += 1
    return [code for code, _share in FLOOR_MIX for _ in range(whole[code])]


def floor_scale_seed(*, plan: ScalePlan) -> str:
    facility, _logins = demo_seed(facility_code=plan.facility.code)
    plan.facility = facility
    for role in Role:
        holders = list(people_holding(facility, [role]).order_by("pk"))
        if holders:
            plan.people[role] = holders[0]
    plan.people["dealers"] = list(people_holding(facility, [Role.DEALER]).order_by("pk"))
    plan.people["floorpersons"] = list(people_holding(facility, [Role.FLOORPERSON]).order_by("pk"))
    existing = GamingTable.objects.filter(facility=facility).count()
    games = {g.code: g for g in Game.objects.all()}
    wanted = _numbers(max(0, plan.tables - existing))
    counters: dict[str, int] = {}
    tables: list[GamingTable] = []
    for code in wanted:
        counters[code] = counters.get(code, 0) + 1
        tables.append(GamingTable(facility=facility, number=f"{code[:3].upper()}-{100 + counters[code]}",
                                  game=games[code], pit=f"Pit {10 + len(tables) // 24}"))
    regulated_bulk_create(GamingTable, tables)
    return (f"{facility.name}: {len(DEMO_PEOPLE)} people, {existing + len(tables)} tables "
            f"({', '.join(f'{code} {wanted.count(code)}' for code, _s in FLOOR_MIX if wanted.count(code))} added)")
