"""The facility's own figures of a wager the engine does not model (no database): each read exactly, a simple
wager's checked with fractions and refused with the exact value, a wager that is not simple filed as stated, and
anything that is not an exact fraction or odds "a to b" refused in words."""

from __future__ import annotations

from fractions import Fraction

import pytest

from compliance.newgames.stated import (
    MAX_WAGERS,
    StatedError,
    WagerText,
    read_fraction,
    read_wagers,
    wagers_from_json,
)


def straight_up(**changes: object) -> WagerText:
    """Double-zero roulette's straight-up wager: 1 pocket of 38, paid 35 to 1."""
    fields: dict[str, object] = {"name": "Straight up", "payout_odds": "35 to 1", "probability": "1/38",
                                 "true_odds": "37 to 1", "house_edge": "1/19",
                                 "method": "enumeration of the 38 pockets"}
    return WagerText(**(fields | changes))  # type: ignore[arg-type]


def refusals(*rows: WagerText) -> list[str]:
    with pytest.raises(StatedError) as raised:
        read_wagers(list(rows))
    return raised.value.messages


def test_a_simple_wager_whose_figures_agree_exactly_is_read_as_stated():
    (wager,) = read_wagers([straight_up()])
    assert wager.probability == Fraction(1, 38) and wager.house_edge == Fraction(1, 19)
    assert wager.payout_odds == "35 to 1" and wager.true_odds_text == "37 to 1"
    assert wager.house_edge_percent == "5.2632%"  # computed from the fraction, never typed
    assert wager.checked == "Simple wager: checked exactly"
    # The same house advantage not in lowest terms is the same fraction, kept as the facility wrote it.
    (wager,) = read_wagers([straight_up(house_edge="2/38", probability=" 2 / 76 ")])
    assert wager.house_edge_text == "2/38" and wager.probability_text == "2/76"


def test_a_house_advantage_that_does_not_follow_is_refused_giving_the_exact_value():
    assert refusals(straight_up(house_edge="1/20")) == [
        "Wager 1 (Straight up): house advantage stated 1/20; from a probability of 1/38 and payout 35 to 1 it is 1/19."]


def test_true_odds_that_do_not_follow_from_the_probability_are_refused_giving_the_exact_value():
    assert refusals(straight_up(true_odds="36 to 1")) == [
        "Wager 1 (Straight up): true odds stated 36 to 1; from a probability of winning of 1/38 they are 37 to 1."]


def test_a_payout_giving_the_player_the_advantage_is_said_so():
    (message,) = refusals(straight_up(payout_odds="40 to 1"))
    assert "from a probability of 1/38 and payout 40 to 1 it is −3/38" in message
    assert "the player, not the house, would have the advantage" in message


def test_a_wager_paid_at_its_true_odds_has_no_house_advantage():
    """Craps' free odds behind a point of 4: wins 1 time in 3, paid 2 to 1; a house advantage of 0."""
    (wager,) = read_wagers([WagerText(name="Odds on 4", payout_odds="2 to 1", probability="1/3", true_odds="2 to 1",
                                      house_edge="0", method="3 ways to make 4 against 6 ways to make 7")])
    assert wager.house_edge == 0 and wager.house_edge_percent == "0.0000%"


@pytest.mark.parametrize("odds", ["35 for 1", "36 for 1", "35 FOR 1"])
def test_payout_odds_stated_with_for_are_refused(odds):
    (message,) = refusals(straight_up(payout_odds=odds))
    assert "odds are stated with 'to', never 'for' (§ 539.6(a))" in message


@pytest.mark.parametrize(("typed", "words"), [
    ("", "give it as an exact fraction, e.g. 1/38"),
    ("0/38", "has a zero"),
    ("1/0", "has a zero"),
    ("-1/38", "is negative"),
    ("−1/38", "is negative"),
    ("2.63%", "not a percentage; the percentage is computed from the fraction"),
    ("0.0263", "not a decimal"),
    ("1e-3", "write it as a fraction p/q"),
    ("one in 38", "write it as a fraction p/q"),
    ("1/38/2", "write it as a fraction p/q"),
    ("NaN", "write it as a fraction p/q"),
    ("١/٣٨", "with the digits 0–9"),
    ("１/３８", "with the digits 0–9"),
    ("1/" + "9" * 31, "at most 30 digits"),
    ("9" * 5000 + "/1", "at most 30 digits"),
    ("38/38", "not below 1"),
    ("39/38", "not below 1"),
])
def test_a_probability_that_is_not_an_exact_fraction_between_0_and_1_is_refused(typed, words):
    (message,) = refusals(straight_up(probability=typed))
    assert message.startswith("Wager 1 (Straight up), probability of winning") and words in message, message


@pytest.mark.parametrize(("typed", "words"), [
    ("1/19%", "not a percentage"), ("5.26", "not a decimal"), ("-1/19", "is negative"), ("0/19", "has a zero"),
    ("19/19", "not below 1"), ("x", "write it as a fraction p/q"),
])
def test_a_house_advantage_that_is_not_an_exact_fraction_below_1_is_refused(typed, words):
    (message,) = refusals(straight_up(house_edge=typed))
    assert "house advantage" in message and words in message, message


@pytest.mark.parametrize(("typed", "words"), [
    ("", "state them “a to b”"), ("0 to 1", "has a zero"), ("35 to 0", "has a zero"), ("35:1", "written 'a to b'"),
    ("1000000001 to 1", "at most 1,000,000,000"), ("٣٥ to 1", "with the digits 0–9"),
])
def test_odds_that_are_not_a_to_b_of_whole_numbers_above_0_are_refused(typed, words):
    assert any(words in m for m in refusals(straight_up(payout_odds=typed))), typed
    assert any(words in m for m in refusals(straight_up(true_odds=typed))), typed


def test_read_fraction_reads_only_exact_fractions():
    assert read_fraction("1/38", "p", example="1/38") == Fraction(1, 38)
    assert read_fraction(" 12 / 480 ", "p", example="1/38") == Fraction(1, 40)
    assert read_fraction("0", "h", example="1/19", zero=True) == 0
    with pytest.raises(ValueError, match="has a zero"):
        read_fraction("0", "p", example="1/38")


def test_a_wager_that_is_not_simple_is_filed_as_stated_without_the_check():
    """Three dice, one number chosen: paid 1, 2 or 3 to 1 as one, two or three dice show it."""
    (wager,) = read_wagers([WagerText(name="One of a kind", payout_odds="1 to 1; 2 to 1; 3 to 1",
                                      probability="91/216", true_odds="125 to 91", house_edge="17/216", simple=False,
                                      method="enumeration of the 216 rolls of three dice")])
    assert wager.payouts == ((1, 1), (2, 1), (3, 1)) and wager.checked.startswith("Not a simple wager")
    # Not checked: figures that would not follow for a simple wager are filed as stated.
    read_wagers([straight_up(house_edge="1/20", true_odds="36 to 1", simple=False)])
    # Still exact and well formed.
    assert any("never 'for'" in m for m in refusals(straight_up(payout_odds="1 to 1; 2 for 1", simple=False)))


def test_a_simple_wager_has_one_payout():
    (message,) = refusals(straight_up(payout_odds="35 to 1; 17 to 1"))
    assert "a simple wager has one payout" in message and "not a simple wager" in message


def test_every_wager_needs_its_name_and_its_method_and_blank_rows_are_left_out():
    assert refusals(WagerText(), straight_up(name="", method=" "), WagerText()) == [
        "Wager 2: name the wager as the layout or the rules name it.",
        "Wager 2: say how the figures were computed, in words (e.g. “enumeration of the 38 pockets”).",
    ]
    assert [w.name for w in read_wagers([WagerText(), straight_up(), WagerText()])] == ["Straight up"]
    assert refusals(WagerText(), WagerText())[0].startswith("State the figures of at least one wager")


def test_every_refusal_is_said_at_once_and_a_name_is_given_once():
    found = refusals(straight_up(house_edge="1/20"), straight_up(name="Split", probability="x"), straight_up())
    assert len(found) == 3
    assert found[1].startswith("Wager 2 (Split), probability of winning")
    assert found[2] == "Two wagers are named “Straight up”: name each wager once."


def test_too_many_wagers_are_refused():
    rows = [straight_up(name=f"Wager {n}") for n in range(MAX_WAGERS + 1)]
    assert refusals(*rows) == [f"State at most {MAX_WAGERS} wagers in one request."]


def test_the_wagers_kept_read_back_as_they_were_stated():
    wagers = read_wagers([straight_up(house_edge="2/38"), straight_up(name="Five number", payout_odds="6 to 1",
                                                                       probability="5/38", true_odds="33 to 5",
                                                                       house_edge="3/38")])
    kept = [w.as_json() for w in wagers]
    assert wagers_from_json(kept) == wagers
    assert kept[0] == {"name": "Straight up", "payout_odds": "35 to 1", "probability": "1/38", "true_odds": "37 to 1",
                       "house_edge": "2/38", "simple": True, "method": "enumeration of the 38 pockets"}
    with pytest.raises(StatedError):
        wagers_from_json({"not": "a list"})
    with pytest.raises(StatedError):
        wagers_from_json([kept[0] | {"house_edge": "1/20"}])
