"""The staffing and surveillance rules engine: pure, no database.

Given the floor at one instant — the tables (open, or about to open), who is at each and who supervises which,
the cameras and what they cover — and the rules as data (:mod:`compliance.staffing.reference`), say which
rules each table breaks, each violation citing its clause. The selectors read the facts in a fixed number of
queries; the services record what this finds; the pages show it.

Readings (docs/staffing.md):

* § 577.9(b) "three dealers ..., one of whom shall act as the stickperson": three people in dealer positions
  (dealer, stickperson, boxperson) at the table, one of them in the stickperson position.
* § 577.9(a) "at least two stationary cameras ... One camera must cover each end": two different stationary
  cameras in service, one covering end A and another end B. A camera out of service counts for nothing.
* § 577.9(c) presupposes a floorperson over every Three Dice Football table (it limits what that floorperson
  supervises): a rule of the positions "floorperson", minimum one.
* § 577.9(c): a floorperson over a Three Dice Football table supervises at most two tables; at most one of them
  of another game, which must be a banking game other than Baccarat, Midibaccarat, Craps, Mini-Craps and Pai
  Gow. Only open tables (and the one about to open) count as supervised. A breach is shown on every table of
  that floorperson, since moving any of them puts it right.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "CameraCover",
    "CameraRuleData",
    "Floor",
    "Rules",
    "SpanRuleData",
    "Staff",
    "StaffingRuleData",
    "TableFacts",
    "Violation",
    "evaluate",
]


@dataclass(frozen=True)
class TableFacts:
    id: int
    number: str
    game_code: str
    game_name: str
    banking: bool


@dataclass(frozen=True)
class Staff:
    """A person in a position at a table at the instant (a floorperson: supervising it)."""

    table_id: int
    position: str
    person_id: int
    name: str = ""


@dataclass(frozen=True)
class CameraCover:
    """A camera covering one end of a table, and whether it counts (stationary and in service)."""

    camera_id: int
    code: str
    table_id: int
    end: str
    stationary: bool = True
    in_service: bool = True


@dataclass(frozen=True)
class StaffingRuleData:
    game_code: str
    code: str
    positions: frozenset[str]
    minimum: int
    words: str
    clause: str
    internal_control: bool = False  # the facility's own rule, not a clause of the regulations: may be overridden


@dataclass(frozen=True)
class CameraRuleData:
    game_code: str
    minimum: int
    each_end: bool
    clause: str
    internal_control: bool = False


@dataclass(frozen=True)
class SpanRuleData:
    game_code: str
    game_name: str
    max_tables: int
    max_other_tables: int
    other_must_be_banking: bool
    excluded: frozenset[str]  # game codes
    excluded_names: tuple[str, ...]
    clause: str


@dataclass(frozen=True)
class Rules:
    staffing: tuple[StaffingRuleData, ...] = ()
    cameras: tuple[CameraRuleData, ...] = ()
    spans: tuple[SpanRuleData, ...] = ()


@dataclass(frozen=True)
class Violation:
    table_id: int
    rule: str  # stable code: "staffing:three-dealers", "cameras", "span:<floorperson id>"
    clause: str
    words: str
    internal_control: bool = False  # only then may a shift manager's signed override meet it


@dataclass
class Floor:
    """The facts at one instant. ``tables``: the open ones (and any about to open)."""

    tables: Sequence[TableFacts]
    staff: Sequence[Staff] = ()
    cameras: Sequence[CameraCover] = ()
    floorperson_names: dict[int, str] = field(default_factory=dict)


_DEALER_WORDS = {"dealer": "dealer", "stickperson": "stickperson", "boxperson": "boxperson"}
FLOORPERSON = "floorperson"


def _count_words(n: int) -> str:
    return ["no one", "one", "two", "three", "four", "five"][n] if n < 6 else str(n)


def _staffing(table: TableFacts, people: list[Staff], rules: Iterable[StaffingRuleData]) -> list[Violation]:
    found = []
    for rule in rules:
        present = {s.person_id for s in people if s.position in rule.positions}
        if len(present) < rule.minimum:
            found.append(Violation(table.id, f"staffing:{rule.code}", rule.clause,
                                   f"{table.game_name} needs {rule.words}; table {table.number} has "
                                   f"{_count_words(len(present))} (§ {rule.clause}).", rule.internal_control))
    return found


def _cameras(table: TableFacts, covers: list[CameraCover], rule: CameraRuleData) -> list[Violation]:
    counting = [c for c in covers if c.stationary and c.in_service]
    cameras = {c.camera_id: c.code for c in counting}
    problems = []
    if len(cameras) < rule.minimum:
        named = ", ".join(sorted(cameras.values())) or "none"
        problems.append(f"at least {_count_words(rule.minimum)} stationary cameras in service are required; "
                        f"it has {_count_words(len(cameras))} ({named})")
    if rule.each_end:
        ends = {end: {c.camera_id for c in counting if c.end == end} for end in ("a", "b")}
        # Two different cameras, one on each end: a single camera on both ends does not do.
        paired = any(x != y for x in ends["a"] for y in ends["b"])
        if not paired:
            missing = [f"end {e.upper()}" for e, ids in ends.items() if not ids]
            problems.append(f"no camera covers {' or '.join(missing)}" if missing
                            else "one camera alone covers both ends; each end needs its own")
    if not problems:
        return []
    return [Violation(table.id, "cameras", rule.clause,
                      f"Table {table.number}: {'; '.join(problems)} (§ {rule.clause}).", rule.internal_control)]


def _spans(tables: dict[int, TableFacts], staff: Sequence[Staff], rules: dict[str, SpanRuleData],
           names: dict[int, str]) -> list[Violation]:
    supervised: dict[int, set[int]] = defaultdict(set)
    for s in staff:
        if s.position == FLOORPERSON and s.table_id in tables:
            supervised[s.person_id].add(s.table_id)
    found = []
    for person, table_ids in supervised.items():
        mine = sorted((tables[t] for t in table_ids), key=lambda t: t.number)
        for game_code in sorted({t.game_code for t in mine} & set(rules)):
            rule = rules[game_code]
            others = [t for t in mine if t.game_code != game_code]
            problems = []
            if len(mine) > rule.max_tables:
                problems.append(f"supervises {len(mine)} tables; at most {rule.max_tables} with a "
                                f"{rule.game_name} table")
            elif len(others) > rule.max_other_tables:
                problems.append(f"supervises {len(others)} tables of other games beside {rule.game_name}; at "
                                f"most {rule.max_other_tables}")
            for other in others:
                if other.game_code in rule.excluded:
                    problems.append(f"{other.game_name} (table {other.number}) may not be supervised with a "
                                    f"{rule.game_name} table")
                elif rule.other_must_be_banking and not other.banking:
                    problems.append(f"{other.game_name} (table {other.number}) is not a banking game")
            if problems:
                who = names.get(person) or f"Floorperson #{person}"
                listed = ", ".join(t.number for t in mine)
                words = f"{who} ({listed}): {'; '.join(problems)} (§ {rule.clause})."
                found += [Violation(t.id, f"span:{game_code}:{person}", rule.clause, words) for t in mine]
    return found


def evaluate(floor: Floor, rules: Rules) -> dict[int, list[Violation]]:
    """``{table id: [violations]}`` for every table of ``floor`` (an empty list: compliant)."""
    staffing: dict[str, list[StaffingRuleData]] = defaultdict(list)
    for rule in rules.staffing:
        staffing[rule.game_code].append(rule)
    cameras = {rule.game_code: rule for rule in rules.cameras}
    spans = {rule.game_code: rule for rule in rules.spans}
    people: dict[int, list[Staff]] = defaultdict(list)
    for s in floor.staff:  # a floorperson counts only for a rule whose positions name the floorperson
        people[s.table_id].append(s)
    covers: dict[int, list[CameraCover]] = defaultdict(list)
    for c in floor.cameras:
        covers[c.table_id].append(c)
    found: dict[int, list[Violation]] = {t.id: [] for t in floor.tables}
    for table in floor.tables:
        found[table.id] += _staffing(table, people[table.id], staffing.get(table.game_code, ()))
        if table.game_code in cameras:
            found[table.id] += _cameras(table, covers[table.id], cameras[table.game_code])
    tables = {t.id: t for t in floor.tables}
    for violation in _spans(tables, floor.staff, spans, floor.floorperson_names):
        found[violation.table_id].append(violation)
    return found
