"""Exclusion-list screening's part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

The Board's two lists — the self-exclusion list (ch. 503a) and the exclusion list of persons required to be excluded
(ch. 511a), three people to one as the Board's are, ``plan.exclusion_entries`` people in all — imported by the
compliance officer through the import service (each a signed version, its entries written by COPY; § 525.21(q)(7)),
the clock at 07:00 of each day of :func:`list_import_days`: the plan's first day, the first day of each quarter
after it (the morning of the quarter's mailing, which is screened against them: ``coupons/scale_mailing.py``), and
the plan's last day, so the copies in force are current when the generated casino is used the day after.

§ 503a.3(d) wants the facility's copy no more than 2 business days old: a real facility imports every day or two.
A year of that is some 250 imports of 200,000-entry files (each about 10 s of the import service's work and 200,000
rows); the generated year imports the updated lists once a quarter (``IMPORT_EVERY_MONTHS``: 1 for monthly, at
about a minute more a year), between which the copies in force are older than the regulation allows.

Each import's lists are the Board's updated ones, the same size: of each list, a hundredth of its people a month
leave it (a self-exclusion term ended, an exclusion lifted) and as many new ones join, with new Board ids; the others
keep theirs. The people are :class:`compliance.exclusion.people_generator.People`, seeded by the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from random import Random
from typing import Any

from compliance.demo import signing_passwords
from compliance.exclusion import services
from compliance.exclusion.models import ListKind
from compliance.exclusion.people_generator import People, list_file
from compliance.gaming_day import day_bounds
from compliance.roles import Role
from compliance.scale import ScalePlan, travel

__all__ = ["IMPORT_HOUR", "exclusion_scale_seed", "list_import_days"]

IMPORT_HOUR = 1  # hours after the gaming day starts (06:00): the compliance officer imports at 07:00
IMPORT_EVERY_MONTHS = 3  # the first day of each quarter; must divide 12, so each quarter starts with an import
SELF_EXCLUDED_SHARE = 0.75
TURNOVER_A_MONTH = 0.01  # of each list's people, replaced


def list_import_days(plan: ScalePlan) -> list[date]:
    """The days the compliance officer imports the Board's lists: the plan's first day, the first day of each
    quarter (of each ``IMPORT_EVERY_MONTHS`` months) after it, and the plan's last day."""
    days = [day for day in plan.each_day()
            if day == plan.first_day or (day.day == 1 and (day.month - 1) % IMPORT_EVERY_MONTHS == 0)]
    if days[-1] != plan.last_day:
        days.append(plan.last_day)
    return days


@dataclass
class _Listed:
    """The people on one of the Board's lists, each with their Board id (a number after the list's prefix)."""

    prefix: str
    people: list[dict[str, Any]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    next_id: int = 1

    def join(self, generator: People, count: int) -> None:
        for _ in range(count):
            self.people.append(generator.person())
            self.ids.append(self.next_id)
            self.next_id += 1

    def turn_over(self, generator: People, rng: Random, months: float) -> None:
        """``months`` of the Board's updates: some people leave the list, as many new ones join it."""
        leaving = set(rng.sample(range(len(self.people)), round(len(self.people) * TURNOVER_A_MONTH * months)))
        self.people = [p for n, p in enumerate(self.people) if n not in leaving]
        self.ids = [i for n, i in enumerate(self.ids) if n not in leaving]
        self.join(generator, len(leaving))

    def file(self) -> bytes:
        return list_file(self.people, self.prefix, self.ids)


def exclusion_scale_seed(*, plan: ScalePlan) -> str:
    rng = plan.rng("exclusion")
    generator = People(seed=rng.getrandbits(64))
    self_excluded = round(plan.exclusion_entries * SELF_EXCLUDED_SHARE)
    lists = {ListKind.SELF_EXCLUSION: _Listed("SE"), ListKind.INVOLUNTARY: _Listed("EX")}
    lists[ListKind.SELF_EXCLUSION].join(generator, max(1, self_excluded))
    lists[ListKind.INVOLUNTARY].join(generator, max(1, plan.exclusion_entries - self_excluded))
    officer = plan.people[Role.COMPLIANCE_OFFICER]
    versions = entries = 0
    with signing_passwords([officer]) as password:
        days = list_import_days(plan)
        for number, day in enumerate(days):
            if number:
                for listed in lists.values():
                    listed.turn_over(generator, rng, (day - days[number - 1]).days / 30.4)
            with travel(day_bounds(plan.facility, day)[0] + timedelta(hours=IMPORT_HOUR)):
                for kind, listed in lists.items():
                    services.list_import(facility=plan.facility, kind=kind, board_list_date=day, data=listed.file(),
                                         file_name=f"{kind.value.replace('_', '-')}-{day:%Y-%m-%d}.csv",
                                         user=officer, password=password)
                    versions += 1
                    entries += len(listed.people)
            if (number + 1) % 2 == 0:
                plan.say(f"    exclusion lists: both imported {number + 1} times, {entries:,} entries")
    in_force = sum(len(listed.people) for listed in lists.values())
    return (f"the Board's two lists imported {versions // len(lists)} times ({entries:,} entries), {in_force:,} "
            f"people on the lists in force "
            f"({len(lists[ListKind.SELF_EXCLUSION].people):,} self-excluded, "
            f"{len(lists[ListKind.INVOLUNTARY].people):,} excluded)")
