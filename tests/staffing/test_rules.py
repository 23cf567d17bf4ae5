"""The rules engine at each boundary of § 577.9, with no database (compliance.staffing.rules)."""

from __future__ import annotations

import pytest

from compliance.staffing.reference import CAMERA_RULES, SPAN_RULES, STAFFING_RULES
from compliance.staffing.rules import (
    CameraCover,
    CameraRuleData,
    Floor,
    Rules,
    SpanRuleData,
    Staff,
    StaffingRuleData,
    TableFacts,
    evaluate,
)

NAMES = {"three-dice-football": "Three Dice Football", "blackjack": "Blackjack", "craps": "Craps",
         "baccarat": "Baccarat", "pai-gow": "Pai Gow", "midibaccarat": "Midibaccarat", "mini-craps": "Mini-Craps",
         "roulette": "Roulette", "sic-bo": "Sic Bo", "poker-room": "Poker room"}


def _rules() -> Rules:
    """The seeded rows of compliance.staffing.reference, as the selectors hand them to the engine."""
    return Rules(
        staffing=tuple(StaffingRuleData(r["game"], r["code"], frozenset(r["positions"].split(",")), r["minimum"],
                                        r["words"], r["clause"]) for r in STAFFING_RULES),
        cameras=tuple(CameraRuleData(r["game"], r["minimum"], r["each_end"], r["clause"]) for r in CAMERA_RULES),
        spans=tuple(SpanRuleData(r["game"], NAMES[r["game"]], r["max_tables"], r["max_other_tables"],
                                 r["other_must_be_banking"], frozenset(r["excluded"]),
                                 tuple(NAMES[c] for c in r["excluded"]), r["clause"]) for r in SPAN_RULES),
    )


def table(pk: int, game: str = "three-dice-football", banking: bool = True) -> TableFacts:
    return TableFacts(pk, f"T-{pk}", game, NAMES[game], banking)


def crew(pk: int, *, dealers: int = 2, stick: int = 1, first_person: int = 0, floor: bool = True) -> list[Staff]:
    """The dealers and stickperson at table ``pk`` and (``floor``) a floorperson of its own over it."""
    base = first_person or pk * 10
    return ([Staff(pk, "dealer", base + i) for i in range(dealers)]
            + [Staff(pk, "stickperson", base + 9 - i) for i in range(stick)]
            + ([Staff(pk, "floorperson", 9000 + pk)] if floor else []))


def cams(pk: int, *ends: str) -> list[CameraCover]:
    return [CameraCover(pk * 100 + i, f"C-{pk}{i}", pk, end) for i, end in enumerate(ends)]


def full(pk: int) -> tuple[list[Staff], list[CameraCover]]:
    return crew(pk), cams(pk, "a", "b")


def check(tables: list[TableFacts], staff: list[Staff], cameras: list[CameraCover]) -> dict[int, list[str]]:
    found = evaluate(Floor(tables, staff, cameras), _rules())
    return {pk: [v.clause for v in violations] for pk, violations in found.items()}


def floor_of(*tables: TableFacts, floorperson: int = 500, supervised: list[int] | None = None):
    staff: list[Staff] = []
    cameras: list[CameraCover] = []
    for t in tables:
        if t.game_code == "three-dice-football":
            s, c = full(t.id)
            staff += s
            cameras += c
    for pk in supervised if supervised is not None else [t.id for t in tables]:
        staff.append(Staff(pk, "floorperson", floorperson))
    return list(tables), staff, cameras


def test_a_fully_staffed_and_watched_table_is_compliant():
    assert check(*floor_of(table(1))) == {1: []}


@pytest.mark.parametrize(("others", "compliant"), [
    ([], True),  # two Three Dice Football tables under one floorperson
    (["three-dice-football"], False),  # three
    (["blackjack-as-other"], True),
    (["craps-as-other"], False),
    (["baccarat-as-other"], False),
    (["pai-gow-as-other"], False),
    (["midibaccarat-as-other"], False),
    (["mini-craps-as-other"], False),
])
def test_a_floorpersons_span(others, compliant):
    tables = [table(1), table(2)] if not others or others == ["three-dice-football"] else [table(1)]
    for n, game in enumerate(others, start=3):
        tables.append(table(n, game.replace("-as-other", "")))
    found = check(*floor_of(*tables))
    broken = {pk for pk, clauses in found.items() if "577.9(c)" in clauses}
    assert (not broken) is compliant, found
    if not compliant:
        assert broken == {t.id for t in tables}  # shown on every table of that floorperson


def test_one_tdf_table_and_one_blackjack_and_one_more_is_too_many():
    found = check(*floor_of(table(1), table(2, "blackjack"), table(3, "roulette")))
    assert all("577.9(c)" in clauses for clauses in found.values())


def test_a_non_banking_other_game_is_refused():
    found = check(*floor_of(table(1), table(2, "poker-room", banking=False)))
    assert "577.9(c)" in found[1]


def test_two_floorpersons_each_within_their_span():
    tables, staff, cameras = floor_of(table(1), table(2), table(3), supervised=[1, 2])
    staff.append(Staff(3, "floorperson", 501))
    assert check(tables, staff, cameras) == {1: [], 2: [], 3: []}


@pytest.mark.parametrize(("dealers", "stick", "clauses"), [
    (2, 1, ["577.9(b)"]),  # three dealers including the stickperson: compliant (checked below)
    (1, 1, ["577.9(b)"]),  # two dealers
    (3, 0, ["577.9(b)"]),  # no stickperson
    (0, 0, ["577.9(b)", "577.9(b)"]),
])
def test_staffing_at_the_boundary(dealers, stick, clauses):
    staff = crew(1, dealers=dealers, stick=stick)
    found = check([table(1)], staff, cams(1, "a", "b"))[1]
    expected = [] if (dealers, stick) == (2, 1) else clauses
    assert found == expected


def test_a_three_dice_football_table_needs_a_floorperson_over_it():
    """§ 577.9(c) limits what "a floorperson" over a Three Dice Football table supervises: it presupposes one."""
    found = evaluate(Floor([table(1)], crew(1, floor=False), cams(1, "a", "b")), _rules())[1]
    assert [(v.rule, v.clause) for v in found] == [("staffing:floorperson", "577.9(c)")]
    assert "a floorperson supervising the table" in found[0].words
    assert check([table(1)], crew(1), cams(1, "a", "b"))[1] == []


def test_no_rule_of_the_regulations_is_an_internal_control():
    """Every seeded rule is § 577.9's: none may be overridden by a signature."""
    assert not any(v.internal_control for vs in evaluate(Floor([table(1)], [], []), _rules()).values() for v in vs)
    assert all("internal_control" not in row or not row["internal_control"] for row in STAFFING_RULES + CAMERA_RULES)


def test_the_same_person_twice_counts_once():
    staff = [*crew(1, dealers=1, stick=1), Staff(1, "dealer", 10)]  # person 10 listed twice
    assert check([table(1)], staff, cams(1, "a", "b"))[1] == ["577.9(b)"]


@pytest.mark.parametrize(("covers", "ok"), [
    (["a", "b"], True),
    (["a"], False),  # one camera
    (["a", "a"], False),  # two cameras on the same end
    (["a", "b", "b"], True),
    ([], False),
])
def test_cameras_at_the_boundary(covers, ok):
    found = check([table(1)], crew(1), cams(1, *covers))[1]
    assert (found == []) is ok, found
    if not ok:
        assert found == ["577.9(a)"]


def test_one_camera_on_both_ends_does_not_do():
    both = [CameraCover(7, "C-7", 1, "a"), CameraCover(7, "C-7", 1, "b")]
    found = evaluate(Floor([table(1)], crew(1), both), _rules())[1]
    assert [v.clause for v in found] == ["577.9(a)"] and "stationary cameras" in found[0].words


def test_a_camera_out_of_service_or_moving_counts_for_nothing():
    down = [CameraCover(1, "C-1", 1, "a"), CameraCover(2, "C-2", 1, "b", in_service=False)]
    ptz = [CameraCover(1, "C-1", 1, "a"), CameraCover(2, "C-2", 1, "b", stationary=False)]
    for cameras in (down, ptz):
        found = evaluate(Floor([table(1)], crew(1), cameras), _rules())[1]
        assert [v.clause for v in found] == ["577.9(a)"] and "end B" in found[0].words


def test_a_game_without_rules_is_compliant_with_no_one_there():
    assert check([table(1, "blackjack")], [], []) == {1: []}


def test_the_words_name_the_table_the_rule_and_the_clause():
    found = evaluate(Floor([table(1)], crew(1, dealers=1), cams(1, "a")), _rules())[1]
    words = " ".join(v.words for v in found)
    assert "T-1" in words and "three dealers" in words and "§ 577.9(b)" in words and "§ 577.9(a)" in words


def test_another_game_is_rows_not_code():
    """A second game's staffing, camera and span rules, given as rows only."""
    rules = Rules(
        staffing=(StaffingRuleData("craps", "boxperson", frozenset({"boxperson"}), 1, "a boxperson", "X.1(a)"),),
        cameras=(CameraRuleData("craps", 1, False, "X.1(b)"),),
        spans=(SpanRuleData("craps", "Craps", 1, 0, True, frozenset(), (), "X.1(c)"),),
    )
    craps = [table(1, "craps"), table(2, "craps")]
    staff = [Staff(1, "boxperson", 11), Staff(1, "floorperson", 500), Staff(2, "floorperson", 500)]
    found = evaluate(Floor(craps, staff, [CameraCover(1, "C-1", 1, "a")]), rules)
    assert [v.clause for v in found[1]] == ["X.1(c)"]
    assert sorted(v.clause for v in found[2]) == ["X.1(a)", "X.1(b)", "X.1(c)"]
