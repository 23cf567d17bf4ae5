"""Asia Poker (ch. 575): the exact figures of the Bonus Wager under paytables A, B and C (§ 575.12(b)).

The Bonus Wager is decided by the seven cards dealt to the player alone: the dealer rearranges them into the
highest ranking hand of § 575.6(d) and pays it at the paytable's odds (§ 575.7(e), § 575.11(h)); the dealer's
cards and the Asia Poker Wager play no part. The deck is one deck of 52 cards and one joker (§ 575.3(a)), so
there are C(53, 7) = 154,143,080 equally likely seven-card hands.

They are counted exactly, not enumerated one by one (that takes hours in Python). A hand is its *rank
vector* (how many cards of each rank, and whether it holds the joker: 67,600 vectors) and, for each vector,
its suits. Pairs, trips, quads, five aces, 9-high and straights depend on the ranks alone; only flushes and
straight flushes depend on the suits. Five cards of one suit among seven (four among the joker's six
companions) can happen in one suit only, so the hands of a vector that make a flush are counted exactly by
choosing the flush suit (4 ways), the set M of ranks held in it (every subset of the vector's ranks of five
or more cards; four or more with the joker), and, for each rank, the suits of its other cards among the three
remaining suits: a rank in M with c cards leaves C(3, c − 1) choices, a rank outside M C(3, c). Each such
group of hands has one suit category (royal, straight flush or flush, from M) and the vector's rank category;
the hand is the higher of the two. The count takes about a fifth of a second, so nothing is cached as data.
The tests check it against a card-by-card enumeration of smaller decks with an independent evaluator and
against the seeded simulator below.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, prod

from compliance.games.math import core

__all__ = [
    "CATEGORIES",
    "DECK_SIZE",
    "GAME",
    "HAND_SIZE",
    "JOKER",
    "PAYTABLES",
    "READINGS",
    "analyse",
    "bonus_counts",
    "bonus_payouts",
    "count_bonus_hands",
    "deal_categories",
    "judge_hand",
    "rank_vector_counts",
    "rank_vectors",
    "simulate",
]

RANKS = "23456789TJQKA"  # § 575.6(a), lowest to highest; the index is the rank used below
EIGHT, TEN, ACE = RANKS.index("8"), RANKS.index("T"), RANKS.index("A")
ALL_RANKS = tuple(range(len(RANKS)))
SUITS = 4
JOKER = 52  # cards 0..51 are rank * 4 + suit; 52 is the joker
DECK_SIZE = 53  # § 575.3(a): one deck and one joker (a second joker is torn, § 575.4(b))
HAND_SIZE = 7  # § 575.8(c): seven cards to each position
HANDS = comb(DECK_SIZE, HAND_SIZE)

# The § 575.6(d) hands, highest first. A royal flush is counted apart as natural or made with the joker
# (both are paid as a royal flush; see the readings). The last category is every hand below a straight.
CATEGORIES: tuple[tuple[str, str], ...] = (
    ("eights-and-trips", "Three-of-a-kind and four 8s"),
    ("five-aces", "Five aces"),
    ("royal-flush", "Royal flush"),
    ("royal-flush-joker", "Royal flush with the joker"),
    ("natural-straight-flush", "Natural straight flush"),
    ("joker-straight-flush", "Straight flush with joker"),
    ("four-of-a-kind", "Four-of-a-kind"),
    ("nine-high", "9-high"),
    ("full-house", "Full house"),
    ("flush", "Flush"),
    ("three-of-a-kind", "Three-of-a-kind"),
    ("straight", "Straight"),
    ("none", "None of the paytable's hands"),
)
(EIGHTS_TRIPS, FIVE_ACES, ROYAL, ROYAL_JOKER, NATURAL_SF, JOKER_SF, QUADS, NINE_HIGH, FULL_HOUSE, FLUSH, TRIPS,
 STRAIGHT, NOTHING) = range(len(CATEGORIES))
CODES = tuple(code for code, _ in CATEGORIES)

# § 575.12(b): the paytables, in the order of § 575.6(d). The two royal categories share one line.
_PAY_LINES = (
    ("Three-of-a-kind and four 8s", (EIGHTS_TRIPS,), (5000, 5000, 5000)),
    ("Five aces", (FIVE_ACES,), (800, 800, 800)),
    ("Royal flush", (ROYAL, ROYAL_JOKER), (200, 200, 200)),
    ("Natural straight flush", (NATURAL_SF,), (80, 50, 50)),
    ("Straight flush with joker", (JOKER_SF,), (40, 40, 40)),
    ("Four-of-a-kind", (QUADS,), (30, 30, 25)),
    ("9-high", (NINE_HIGH,), (10, 10, 10)),
    ("Full house", (FULL_HOUSE,), (5, 5, 5)),
    ("Flush", (FLUSH,), (4, 4, 4)),
    ("Three-of-a-kind", (TRIPS,), (3, 3, 3)),
    ("Straight", (STRAIGHT,), (2, 2, 2)),
)
PAYTABLES: dict[str, tuple[tuple[str, tuple[int, ...], Fraction], ...]] = {
    letter: tuple((label, categories, Fraction(odds[column])) for label, categories, odds in _PAY_LINES)
    for column, letter in enumerate("ABC")
}

READINGS = (
    "What the Bonus Wager pays on follows the paytable. § 575.7(e) describes the wager as a hand \"with a rank of "
    "9-high or better as described in § 575.6(d)\", and § 575.11(h)(1) collects it when the seven cards do \"not have "
    "a 9-high or better\"; yet § 575.6(d) ranks full house, flush, three-of-a-kind and straight below the 9-high, "
    "and § 575.12(b) pays them 5, 4, 3 and 2 to 1. The paytable is read as deciding, since it names what is paid; "
    "read literally (only 9-high or better wins), paytable A would keep 83.49% of the wager.",
    "Only the Bonus Wager (§ 575.7(e)) is computed. The Asia Poker Wager itself, the player's three hands "
    "against the dealer's set the house way (§ 575.11(c), (f)), depends on the certificate holder's house way "
    "and the player's setting and is out of scope here.",
    "The Bonus Wager is settled on the seven cards dealt to the player, whatever the hands as the player set "
    "them: after the Asia Poker Wager is settled the dealer rearranges the seven cards into the highest ranking "
    "§ 575.6(d) hand (§ 575.7(e), § 575.11(h)). It does not depend on the dealer's hand or on whether the Asia "
    "Poker Wager won; 'a winning player' in § 575.6(d) is read as the player whose Bonus Wager wins.",
    "The deck is 52 cards and one joker (§ 575.3(a), § 575.4(b)); with two decks (§ 575.3(b)) each round is "
    "still dealt from one 53-card deck. Every one of the C(53, 7) = 154,143,080 seven-card hands is equally "
    "likely, and the other players' cards, unseen, do not change that.",
    "The joker is used and ranked as an ace, or as any card to complete a straight, a flush, a straight flush "
    "or a royal flush (§ 575.6(a)), whichever makes the higher hand. So three aces and the joker are a "
    "four-of-a-kind, two aces and the joker are a three-of-a-kind (also in 'three-of-a-kind and four 8s' and "
    "in a full house), four aces and the joker are five aces (§ 575.6(d)(2)); the joker is never an 8, never "
    "another pair's card and never part of a 9-high.",
    "The § 575.6(d) hands rank in the order listed there, the order of the paytable; a hand that is two of "
    "them is the higher (§ 575.11(h) 'the highest ranking hand'). So a 9-high that is also a flush is a 9-high, "
    "and three-of-a-kind beats a straight, as the paytable has it.",
    "A royal flush completed with the joker (the joker and four of ace, king, queen, jack and 10 of one suit) "
    "is a royal flush, paid 200 to 1: § 575.6(a) names the royal flush among the hands the joker may complete, "
    "and § 575.6(d)(3) does not ask for a natural one as (d)(4) does of the straight flush. Read instead as a "
    "straight flush with joker, the royal flush would be natural only and the house advantage higher.",
    "A straight or straight flush is five cards of consecutive rank; ace-2-3-4-5 is one (the ace combined "
    "with 2, 3 and 4, § 575.6(a)), queen-king-ace-2-3 and other sequences through the ace are not. Where the "
    "ace-2-3-4 straight ranks (§ 575.6(b)(3), (6)) orders straights against each other in the Asia Poker "
    "Wager only; the Bonus Wager pays every straight alike, so that option changes nothing here and is not "
    "offered.",
    "Three-of-a-kind and four 8s is four 8s with three cards of one other rank (seven cards); a full house "
    "is three of one rank and at least two of another; a flush is five cards of one suit; a 9-high is exactly "
    "9, 8, 7, 6, 4, 3, 2 or 9, 8, 7, 5, 4, 3, 2 in any suits (§ 575.6(d)(7)).",
    "The figures are per unit wagered; the payout limit a certificate holder may set per hand (§ 575.12(c)) "
    "is not applied, as it depends on the amount wagered.",
    "The paytable is the certificate holder's choice in its Rules Submission (§ 575.12(b)); the regulation "
    "names no default, so A is shown unless another is chosen.",
)


# --- Ranks and suits as 13-bit masks (bit r: rank r present) -----------------------------------------------

_WINDOWS = (*((0b11111 << low) for low in range(TEN + 1)), (1 << ACE) | 0b1111)  # 2-6 .. 10-A, then A-5
_ROYAL_RANKS = 0b11111 << TEN
_NINE_HIGH_HANDS = ("9876432", "9875432")  # § 575.6(d)(7)
_NINE_HIGHS = frozenset(sum(1 << RANKS.index(rank) for rank in hand) for hand in _NINE_HIGH_HANDS)
_C4 = (1, 4, 6, 4, 1)  # C(4, c): the suits of c cards of one rank
_C3 = (1, 3, 3, 1, 0)  # C(3, c): the same among the three suits other than the flush suit


@cache
def _straight(mask: int) -> bool:
    return any(mask & window == window for window in _WINDOWS)


@cache
def _straight_with_joker(mask: int) -> bool:
    """Four of the five ranks of some straight: the joker completes it."""
    return any((mask & window).bit_count() >= 4 for window in _WINDOWS)


def _by_ranks(counts: Sequence[int], mask: int) -> int:
    """The category the ranks alone make, with no joker."""
    quads = trips = pairs = 0
    for c in counts:
        if c == 4:
            quads += 1
        elif c == 3:
            trips += 1
        elif c == 2:
            pairs += 1
    if counts[EIGHT] == 4 and trips:
        return EIGHTS_TRIPS
    if quads:
        return QUADS
    if mask in _NINE_HIGHS:
        return NINE_HIGH
    if trips > 1 or (trips and pairs):
        return FULL_HOUSE
    if trips:
        return TRIPS
    return STRAIGHT if _straight(mask) else NOTHING


def _by_ranks_with_joker(counts: Sequence[int], mask: int) -> int:
    """The joker as an ace, or as the missing card of a straight (§ 575.6(a)), whichever is higher."""
    as_ace = list(counts)
    as_ace[ACE] += 1
    if as_ace[ACE] == 5:
        return FIVE_ACES
    category = _by_ranks(as_ace, mask | 1 << ACE)
    return STRAIGHT if category > STRAIGHT and _straight_with_joker(mask) else category


def _by_suit(suited: int, joker: bool, joker_royal: bool) -> int:
    """The category of a flush whose suit holds the ranks ``suited`` (five or more; four or more with the joker)."""
    if suited & _ROYAL_RANKS == _ROYAL_RANKS:
        return ROYAL
    if joker and joker_royal and (suited & _ROYAL_RANKS).bit_count() >= 4:
        return ROYAL_JOKER
    if _straight(suited):
        return NATURAL_SF
    if joker and _straight_with_joker(suited):
        return JOKER_SF
    return FLUSH


def _flush_groups(counts: Sequence[int], support: Sequence[int], joker: bool) -> Iterator[tuple[int, int]]:
    """(ranks held in the flush suit, number of hands) for every way the vector's cards make a flush.

    At most one suit holds five of seven cards (four of the joker's six companions), so these groups are
    disjoint: the flush suit (4 ways), its ranks M, and the other cards' suits among the three others.
    """
    least = 4 if joker else 5
    inside = [_C3[counts[r] - 1] for r in support]
    outside = [_C3[counts[r]] for r in support]
    positions = range(len(support))
    for size in range(least, len(support) + 1):
        for chosen in combinations(positions, size):
            picked = set(chosen)
            ways = SUITS * prod(inside[i] if i in picked else outside[i] for i in positions)
            if ways:
                yield sum(1 << support[i] for i in chosen), ways


@cache
def _shape(parts: tuple[int, ...], joker: bool) -> tuple[int, int]:
    """(hands, of which flushes) of a rank vector holding ``parts`` cards of its ranks: the ranks do not matter."""
    hands = prod(_C4[c] for c in parts)
    least = 4 if joker else 5
    flushes = sum(ways for _, ways in _flush_groups(parts, range(len(parts)), joker)) if len(parts) >= least else 0
    return hands, flushes


def rank_vector_counts(counts: Sequence[int], joker: bool, *, joker_royal: bool = True) -> dict[int, int]:
    """The hands with ``counts[r]`` cards of rank r (and the joker if ``joker``), by category index.

    ``joker_royal=False`` reads a royal flush completed with the joker as a straight flush with joker.
    """
    support = [r for r, c in enumerate(counts) if c]
    parts = tuple(counts[r] for r in support)
    return _vector_counts(counts, support, sum(1 << r for r in support), _shape(parts, joker), joker, joker_royal)


def _vector_counts(counts: Sequence[int], support: Sequence[int], mask: int, shape: tuple[int, int], joker: bool,
                   joker_royal: bool) -> dict[int, int]:
    hands, flushes = shape
    by_ranks = _by_ranks_with_joker(counts, mask) if joker else _by_ranks(counts, mask)
    if not flushes:
        return {by_ranks: hands}
    found = {by_ranks: hands - flushes}
    if not (_straight_with_joker(mask) if joker else _straight(mask)):  # no straight flush within these ranks
        category = min(by_ranks, FLUSH)
        found[category] = found.get(category, 0) + flushes
    else:
        for suited, ways in _flush_groups(counts, support, joker):
            category = min(by_ranks, _by_suit(suited, joker, joker_royal))
            found[category] = found.get(category, 0) + ways
    return {category: n for category, n in found.items() if n}


@cache
def _compositions(cards: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """``cards`` split into ``parts`` ordered parts of 1 to 4 cards (a rank has four suits)."""
    if parts == 0:
        return ((),) if cards == 0 else ()
    return tuple((first, *rest) for first in range(1, min(SUITS, cards) + 1)
                 for rest in _compositions(cards - first, parts - 1))


def _vectors(cards: int, ranks: Sequence[int]) -> Iterator[tuple[list[int], tuple[int, ...], int, tuple[int, ...]]]:
    """(counts, ranks held, their mask, their counts) for every way to hold ``cards`` natural cards of ``ranks``."""
    for size in range(1, min(cards, len(ranks)) + 1):
        for support in combinations(sorted(ranks), size):
            mask = sum(1 << r for r in support)
            for parts in _compositions(cards, size):
                counts = [0] * len(RANKS)
                for r, c in zip(support, parts, strict=True):
                    counts[r] = c
                yield counts, support, mask, parts


def rank_vectors(cards: int, ranks: Sequence[int] = ALL_RANKS) -> Iterator[tuple[int, ...]]:
    """Every way to hold ``cards`` natural cards, at most four of a rank, using only ``ranks``."""
    for counts, *_ in _vectors(cards, ranks):
        yield tuple(counts)


def count_bonus_hands(*, joker_royal: bool = True, ranks: Sequence[int] = ALL_RANKS) -> dict[str, int]:
    """Every seven-card hand by its § 575.6(d) category: {code: hands}.

    Over the whole deck (summing to C(53, 7)), or, given ``ranks``, over the smaller deck of the four suits of
    those ranks and the joker (for checking against a card-by-card enumeration).
    """
    totals = [0] * len(CATEGORIES)
    for joker in (False, True):
        for counts, support, mask, parts in _vectors(HAND_SIZE - 1 if joker else HAND_SIZE, ranks):
            shape = _shape(parts, joker)
            for category, hands in _vector_counts(counts, support, mask, shape, joker, joker_royal).items():
                totals[category] += hands
    assert sum(totals) == comb(SUITS * len(ranks) + 1, HAND_SIZE), "every hand is counted once"
    return dict(zip(CODES, totals, strict=True))


@cache
def bonus_counts() -> dict[str, int]:
    """:func:`count_bonus_hands` under the readings, computed once per process."""
    return count_bonus_hands()


# --- The figures ---------------------------------------------------------------------------------------------

def _bonus_figures(paytable: str) -> core.WagerFigures:
    counted = bonus_counts()
    rows: list[tuple[str, Fraction, int]] = []
    for label, categories, odds in PAYTABLES[paytable]:
        rows.append((label, odds, sum(counted[CODES[c]] for c in categories)))
    rows.append(("None of the paytable's hands", Fraction(-1), counted["none"]))
    note = (f"Paytable {paytable}: the highest ranking § 575.6(d) hand of the player's seven cards "
            f"(§ 575.11(h)), over the C(53, 7) = {HANDS:,} hands of one deck and one joker.")
    return core.WagerFigures("bonus", "Bonus Wager", "575.12(b)", core.outcomes_from(rows, HANDS), note=note)


def bonus_payouts(paytable: str) -> tuple[Fraction, ...]:
    """What ``paytable`` pays a winning Bonus Wager, line by line, highest first (§ 575.12(b)): read off the paytable
    itself, no hand counted. The payout floor of § 575.12(c) needs only these, and the table's readiness asks it on a
    scan; :func:`analyse` counts every hand (about a quarter of a second, once a process) for the probabilities."""
    if paytable not in PAYTABLES:
        raise core.OptionError(f"Bonus paytable (§ 575.12(b)) is one of A, B, C, not {paytable!r}.")
    return tuple(sorted((odds for _label, _categories, odds in PAYTABLES[paytable]), reverse=True))


def analyse(options: Mapping[str, str]) -> core.Analysis:
    paytable = options.get("paytable", "A")
    if paytable not in PAYTABLES:
        raise core.OptionError(f"Bonus paytable (§ 575.12(b)) is one of A, B, C, not {paytable!r}.")
    return core.Analysis(game=GAME_SLUG, title=TITLE, options=(("paytable", paytable),), readings=READINGS,
                         wagers=(_bonus_figures(paytable),))


# --- An independent hand-by-hand evaluator and the seeded simulator -----------------------------------------
# Written afresh from § 575.6 with sets and lists, sharing nothing with the counting above.

_ROYAL_SET = frozenset(range(TEN, ACE + 1))
_RUNS = (frozenset({ACE, 0, 1, 2, 3}), *(frozenset(range(low, low + 5)) for low in range(TEN + 1)))  # A-5 .. 10-A
_NINE_HIGH_LISTS = [sorted(RANKS.index(rank) for rank in hand) for hand in _NINE_HIGH_HANDS]
Card = tuple[int, int | None]  # (rank, suit); the joker used as an ace has no suit


def _has_run(ranks: set[int]) -> bool:
    return any(run <= ranks for run in _RUNS)


def _flush_ranks(cards: Sequence[Card]) -> set[int] | None:
    for suit in range(SUITS):
        ranks = {r for r, s in cards if s == suit}
        if len(ranks) >= 5:
            return ranks
    return None


def _judge_plain(cards: Sequence[Card]) -> int:
    """The category of seven cards with no wild card (the joker, if any, is an ace of no suit)."""
    tally = Counter(r for r, _ in cards)
    others = [n for r, n in tally.items() if r != EIGHT]
    flush = _flush_ranks(cards)
    if tally[EIGHT] == 4 and 3 in others:
        return EIGHTS_TRIPS
    if tally[ACE] == 5:
        return FIVE_ACES
    if flush is not None and flush.issuperset(_ROYAL_SET):
        return ROYAL
    if flush is not None and _has_run(flush):
        return NATURAL_SF
    if max(tally.values()) >= 4:
        return QUADS
    if sorted(r for r, _ in cards) in _NINE_HIGH_LISTS:
        return NINE_HIGH
    sizes = sorted(tally.values(), reverse=True)
    if sizes[0] == 3 and sizes[1] >= 2:
        return FULL_HOUSE
    if flush is not None:
        return FLUSH
    if sizes[0] == 3:
        return TRIPS
    return STRAIGHT if _has_run(set(tally)) else NOTHING


def _judge_wild(naturals: Sequence[Card]) -> int:
    """The joker as any card completing a straight, flush, straight flush or royal flush."""
    suit = Counter(s for _, s in naturals).most_common(1)[0][0]  # a flush can only be in this suit
    suited = {r for r, s in naturals if s == suit}
    ranks = {r for r, _ in naturals}
    best = NOTHING
    for rank in range(len(RANKS)):  # the joker as this rank, in that suit
        flush = suited | {rank}
        if len(flush) >= 5 and flush.issuperset(_ROYAL_SET):
            best = min(best, ROYAL_JOKER)
        elif len(flush) >= 5 and _has_run(flush):
            best = min(best, JOKER_SF)
        elif len(flush) >= 5:
            best = min(best, FLUSH)
        elif _has_run(ranks | {rank}):
            best = min(best, STRAIGHT)
    return best


def judge_hand(hand: Sequence[int]) -> int:
    """The category index of seven cards (0..51 = rank × 4 + suit, 52 the joker), card by card."""
    naturals: list[Card] = [(card // SUITS, card % SUITS) for card in hand if card != JOKER]
    if len(naturals) == len(hand):
        return _judge_plain(naturals)
    return min(_judge_plain([*naturals, (ACE, None)]), _judge_wild(naturals))


def deal_categories(rounds: int, seed: int) -> Counter[int]:
    """``rounds`` hands of seven cards, each the top of a freshly shuffled deck, by category index.

    Only the top seven cards are shuffled into place: the first seven steps of a Fisher-Yates shuffle give
    them exactly the distribution of a full shuffle's top seven.
    """
    rng = random.Random(seed)  # noqa: S311  (a reproducible cross-check, not a secret)
    deck = list(range(DECK_SIZE))
    found: Counter[int] = Counter()
    for _ in range(rounds):
        for top in range(HAND_SIZE):
            pick = rng.randrange(top, DECK_SIZE)
            deck[top], deck[pick] = deck[pick], deck[top]
        found[judge_hand(deck[:HAND_SIZE])] += 1
    return found


def simulate(options: Mapping[str, str], rounds: int, seed: int) -> dict[str, core.Tally]:
    """One unit on the Bonus Wager for each of ``rounds`` hands dealt by :func:`deal_categories`."""
    pays = {NOTHING: -1.0}
    for _, categories, odds in PAYTABLES[options.get("paytable", "A")]:
        pays.update({c: float(odds) for c in categories})
    tally = core.Tally()
    for category, hands in sorted(deal_categories(rounds, seed).items()):
        for _ in range(hands):
            tally.add(pays[category])
    return {"bonus": tally}


GAME_SLUG = "asia-poker"
TITLE = "Asia Poker"
GAME = core.register(core.GameMath(
    slug=GAME_SLUG,
    title=TITLE,
    chapter="ch. 575",
    citations=("575.3(a)", "575.6(a)", "575.6(d)", "575.7(e)", "575.11(h)", "575.12(b)", "575.12(c)"),
    options=(
        core.OptionSpec(
            name="paytable", label="Bonus paytable", clause="575.12(b)", default="A", choices=("A", "B", "C"),
            help="The certificate holder selects paytable A, B or C in its Rules Submission; the regulation "
                 "names no default.",
        ),
    ),
    analyse=analyse,
    simulate=simulate,
    readings=READINGS,
))
