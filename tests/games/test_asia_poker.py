"""Asia Poker's Bonus Wager (§ 575.12(b)): exact counts of the seven-card hands, checked three ways.

The counts come from rank vectors and flush suits (``count_bonus_hands``); they are checked against closed
forms, against a card-by-card enumeration of smaller decks and of whole rank vectors with an independent
evaluator (``judge_hand``), and against the seeded simulator. Pure: no database.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from fractions import Fraction
from itertools import combinations, product

import pytest

from compliance.games.math import asia_poker as ap
from compliance.games.math import core

HANDS = math.comb(53, 7)


def cards(text: str) -> list[int]:
    """'As Ks Qs Js X 2h 3d' → card numbers (rank × 4 + suit; X is the joker)."""
    suits = "shdc"
    return [ap.JOKER if card == "X" else ap.RANKS.index(card[0]) * 4 + suits.index(card[1]) for card in text.split()]


def category(text: str) -> str:
    return ap.CODES[ap.judge_hand(cards(text))]


def brute_force(deck: list[int]) -> dict[str, int]:
    """Every seven cards of ``deck``, judged one by one."""
    found = Counter(ap.judge_hand(hand) for hand in combinations(deck, 7))
    return {code: found[i] for i, code in enumerate(ap.CODES)}


def suits_of(counts: tuple[int, ...], joker: bool) -> Counter[int]:
    """Every hand with this rank vector, judged one by one: each rank's cards take every set of suits."""
    per_rank = [[tuple(r * 4 + s for s in suits) for suits in combinations(range(4), c)]
                for r, c in enumerate(counts) if c]
    found: Counter[int] = Counter()
    for choice in product(*per_rank):
        hand = [card for group in choice for card in group] + ([ap.JOKER] if joker else [])
        found[ap.judge_hand(hand)] += 1
    return found


# --- The counts --------------------------------------------------------------------------------------------------

def test_every_seven_card_hand_of_the_53_card_deck_is_counted_once():
    counts = ap.bonus_counts()
    assert set(counts) == set(ap.CODES)
    assert sum(counts.values()) == HANDS == 154_143_080


def test_the_counts_of_the_hands_that_have_a_closed_form():
    counts = ap.bonus_counts()
    assert counts["eights-and-trips"] == 12 * 4 + math.comb(4, 2)  # three of another rank, or two aces and the joker
    assert counts["five-aces"] == math.comb(48, 2)
    assert counts["royal-flush"] == 4 * (math.comb(47, 2) + 47)  # natural: two others, or one other and the joker
    assert counts["nine-high"] == 2 * 4**7  # any suits: a 9-high that is a flush is still a 9-high


def test_the_counts_as_computed():
    """Pinned; the same figures came from a one-off C enumeration of all 154,143,080 hands card by card."""
    assert ap.bonus_counts() == {
        "eights-and-trips": 54, "five-aces": 1_128, "royal-flush": 4_512, "royal-flush-joker": 21_620,
        "natural-straight-flush": 38_728, "joker-straight-flush": 146_104, "four-of-a-kind": 307_418,
        "nine-high": 32_768, "full-house": 4_188_528, "flush": 6_170_400, "three-of-a-kind": 7_672_500,
        "straight": 11_034_204, "none": 124_525_116,
    }


@pytest.mark.parametrize("ranks", ["TJQKA", "A2345", "56789"])
def test_the_count_agrees_with_every_hand_of_a_five_rank_deck_and_the_joker(ranks):
    """The four suits of five ranks and the joker: C(21, 7) = 116,280 hands, judged one by one."""
    indices = [ap.RANKS.index(r) for r in ranks]
    deck = [r * 4 + s for r in indices for s in range(4)] + [ap.JOKER]
    assert ap.count_bonus_hands(ranks=indices) == brute_force(deck)


def test_the_count_agrees_with_every_suit_of_sampled_rank_vectors():
    """A seeded sample of rank vectors with and without the joker, and the 9-high and four-8s vectors: every
    assignment of suits judged one by one against the vector's count."""
    rng = random.Random(575)
    vectors = [(v, joker) for joker in (False, True) for v in ap.rank_vectors(6 if joker else 7)]
    sample = [pick for pick in rng.sample(vectors, 400) if math.prod(math.comb(4, c) for c in pick[0]) <= 2_000][:40]
    special = [
        (tuple(1 if r in "9876432" else 0 for r in ap.RANKS), False),
        (tuple(1 if r in "9875432" else 0 for r in ap.RANKS), False),
        (tuple({"8": 4, "K": 3}.get(r, 0) for r in ap.RANKS), False),
        (tuple({"8": 4, "A": 2}.get(r, 0) for r in ap.RANKS), True),
        (tuple({"T": 1, "J": 1, "Q": 1, "K": 1, "A": 2}.get(r, 0) for r in ap.RANKS), True),
        (tuple(1 if r in "A2346" else 0 for r in ap.RANKS), True),
    ]
    for counts, joker in special + sample:
        assert ap.rank_vector_counts(counts, joker) == dict(suits_of(counts, joker)), (counts, joker)


# --- The independent evaluator, hand by hand (§ 575.6(a), (d)) -----------------------------------------------------

@pytest.mark.parametrize(("hand", "expected"), [
    ("8s 8h 8d 8c Ks Kh Kd", "eights-and-trips"),
    ("8s 8h 8d 8c As Ah X", "eights-and-trips"),  # the joker as the third ace
    ("As Ah Ad Ac X 2s 3h", "five-aces"),
    ("As Ks Qs Js Ts 2h 3d", "royal-flush"),
    ("X Ks Qs Js Ts 2h 3d", "royal-flush-joker"),
    ("9s Ks Qs Js Ts X 3d", "royal-flush-joker"),  # a royal with the joker beats the natural straight flush
    ("As 2s 3s 4s 5s Kh Kd", "natural-straight-flush"),
    ("As 2s 3s 4s X Kh Kd", "joker-straight-flush"),
    ("Ks Kh Kd Kc 2s 3h 4d", "four-of-a-kind"),
    ("As Ah Ad X 2s 3h 4d", "four-of-a-kind"),  # the joker as the fourth ace
    ("9s 8s 7s 6s 4s 3h 2d", "nine-high"),  # also a flush: the 9-high ranks higher
    ("9s 8h 7d 5c 4s 3h 2d", "nine-high"),
    ("Ks Kh Kd 2s 2h 5d 7c", "full-house"),
    ("Ks Kh Kd As X 5d 7c", "full-house"),  # the joker as the second ace
    ("Ks Kh Kd Qs Qh Qd 7c", "full-house"),
    ("As 9s 7s 5s X Kh Qd", "flush"),
    ("Ks Kh Kd 2s 5h 9d Jc", "three-of-a-kind"),
    ("Ks Kh 4d 5s 6h 7d 8c", "straight"),
    ("Qs Kh Ad 2s 3h 7d 9c", "none"),  # no straight through the ace
    ("2s 3h 4d 6s 9h Jd X", "straight"),  # the joker as the 5
    ("Ks Qh 9d 7c 5s 3h X", "none"),  # the joker as an ace pairs nothing and completes no straight here
    ("As Kh Qd Jc 9s 8h 7d", "none"),
])
def test_the_evaluator_reads_the_hands_of_575_6_d(hand, expected):
    assert category(hand) == expected


# --- The figures ---------------------------------------------------------------------------------------------------

def figures(paytable: str) -> core.WagerFigures:
    return ap.GAME.run({"paytable": paytable}).wager("bonus")


@pytest.mark.parametrize("paytable", ["A", "B", "C"])
def test_the_outcomes_are_one_per_paying_hand_and_a_loss_and_sum_to_one(paytable):
    bonus = figures(paytable)
    assert bonus.total == 1
    assert bonus.push == 0
    assert len(bonus.tiers) == 11
    assert [o.net for o in bonus.outcomes if o.net < 0] == [-1]
    assert bonus.tiers[0].label == "Three-of-a-kind and four 8s" and bonus.tiers[0].net == 5000
    assert bonus.probability == Fraction(HANDS - 124_525_116, HANDS)


def test_the_house_advantage_of_each_paytable():
    edges = {p: figures(p).house_edge for p in "ABC"}
    assert edges == {
        "A": Fraction(2_230_887, 38_535_770),  # 5.7891 %
        "B": Fraction(2_521_347, 38_535_770),  # 6.5429 %
        "C": Fraction(830_177, 11_010_220),  # 7.5401 %
    }
    assert len(set(edges.values())) == 3
    assert all(edge > 0 for edge in edges.values())
    assert edges["A"] < edges["B"] < edges["C"]  # B pays less for a natural straight flush, C also for quads


def test_the_paytable_is_the_only_option_and_a_is_shown_by_default():
    assert [o.name for o in ap.GAME.options] == ["paytable"]
    assert ap.GAME.run().options == (("paytable", "A"),)
    with pytest.raises(core.OptionError, match=r"§ 575\.12\(b\)"):
        ap.GAME.run({"paytable": "D"})
    with pytest.raises(core.OptionError, match="ace_low_straight"):
        ap.GAME.run({"ace_low_straight": "yes"})


def test_reading_a_joker_royal_as_a_straight_flush_only_moves_royals_down():
    other = ap.count_bonus_hands(joker_royal=False)
    counts = ap.bonus_counts()
    assert other["royal-flush-joker"] == 0
    assert other["royal-flush"] == counts["royal-flush"]
    assert sum(other.values()) == HANDS
    moved = counts["royal-flush-joker"]
    assert other["natural-straight-flush"] + other["joker-straight-flush"] == (
        counts["natural-straight-flush"] + counts["joker-straight-flush"] + moved)


def test_the_full_analysis_takes_under_a_second_from_cold():
    ap.bonus_counts.cache_clear()
    for cached in (ap._straight, ap._straight_with_joker, ap._shape, ap._compositions):
        cached.cache_clear()
    started = time.perf_counter()
    analysis = ap.GAME.run({"paytable": "C"})
    elapsed = time.perf_counter() - started
    print(f"Asia Poker analysis from cold: {elapsed:.3f} s")
    assert analysis.wager("bonus").total == 1
    assert elapsed < 1.0


# --- The simulator ------------------------------------------------------------------------------------------------

def test_dealt_hands_fall_in_each_category_as_often_as_counted():
    rounds = 60_000
    dealt = ap.deal_categories(rounds, seed=20_575)
    counts = ap.bonus_counts()
    for i, code in enumerate(ap.CODES):
        p = counts[code] / HANDS
        spread = 4 * math.sqrt(p * (1 - p) / rounds)
        assert abs(dealt[i] / rounds - p) <= spread + 1.5 / rounds, code


@pytest.mark.parametrize("paytable", ["A", "B", "C"])
def test_the_simulator_agrees_with_the_exact_house_advantage(paytable):
    tally = ap.simulate({"paytable": paytable}, 40_000, 575)["bonus"]
    assert tally.n == 40_000
    exact = float(figures(paytable).house_edge)
    assert abs(-tally.mean - exact) <= 4 * tally.stderr
