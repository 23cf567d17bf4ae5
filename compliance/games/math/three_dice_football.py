"""Three Dice Football (ch. 577): the exact figures of every wager and a seeded play-by-play simulator.

One play is one throw of three dice, two green (the Offensive Dice) and one red (the Defensive Die)
(§ 577.1, § 577.4(c), § 577.5(a)): 6³ = 216 equally likely throws. The single-play wagers are decided by
the dice alone (§ 577.6(d)), so their figures are counted over those 216 throws. The full-game wagers are
decided by how and when the game ends; a game lasts at most six plays (three downs to earn a 1st & Goal,
three more to score, § 577.6(e)), so the absorbing Markov chain is solved exactly by pushing its
probability forward one play at a time over the states (yards to go, 1st & Goal earned, down) until every
game has ended. Everything is a :class:`fractions.Fraction`; nothing here imports Django.

The chapter as published (Pa.B. Doc. No. 12-1409) and its annex copy differ only in wording and numbering
(e.g. "seven or more yards" for "7 yards or more", "Play 1" for "Play One", the annex's § 577.2 "(e)" for
"(c)"); no difference changes a figure. Both name the "Game Changer Wager" in § 577.3(b)(5) and the "Game
Change Wager" in § 577.8(a), and "Over/Under Four Yards" in § 577.3(d) but "Over/Under 4 Yards" in § 577.8(b).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import product

from compliance.games.math import core

__all__ = [
    "ENDINGS",
    "GAME",
    "READINGS",
    "analyse",
    "game_endings",
    "read_throw",
    "simulate",
    "throw_effects",
]

FACES = range(1, 7)
THROWS = 6**3  # two green dice and one red die per play (§ 577.4(c), § 577.5(a))
START_YARDS = 20  # § 577.6(a): the Yard Marker starts in the 20 yard line circle
GOAL_LINE_AT = 10  # § 577.6(e): a 1st & Goal is earned by reaching the 10 yard line
DOWNS = 3  # § 577.6(e): three downs to score or earn a 1st & Goal; three more after a 1st & Goal
PENALTY_YARDS = 1  # § 577.6(c)(2): a penalty loses only 1 yard and the down
TURNOVER_RED = 6  # § 577.1 Turnover: Defensive Die 6, Offensive Dice totalling 2 or 3
TURNOVER_GREEN = (2, 3)

# How a game ends (the absorbing states of the chain).
TOUCHDOWN, TRIPS_TD, TURNOVER, DOWNS_FIRST, DOWNS_GOAL = (
    "touchdown", "trips-td", "turnover", "no 1st & Goal in three downs", "no score in three goal downs")
ENDINGS = (TOUCHDOWN, TRIPS_TD, TURNOVER, DOWNS_FIRST, DOWNS_GOAL)
SCORED = frozenset({TOUCHDOWN, TRIPS_TD})

READINGS = (
    "One play is one throw of three dice: the two green Offensive Dice and the red Defensive Die the "
    "Quarterback selected from the table's set of four green and two red (§ 577.1, § 577.4(a), (c), § 577.5(a)); "
    "216 equally likely throws.",
    "Play starts with the Yard Marker on the 20 yard line, 20 yards from the goal line (§ 577.6(a)).",
    "All three dice showing the same number is a Trips TD that ends the game at once (§ 577.1, § 577.6(c)(5)); "
    "it is read before the totals, so 1-1-1 is a Trips TD, not a 1-yard gain.",
    "A turnover is a red 6 with a green total of 2 or 3 (§ 577.1); it ends the game at once (§ 577.6(c)(4)) "
    "and is not a penalty.",
    "Green total above the red: a gain of (green total − red) yards (§ 577.6(c)(1)); equal: no gain "
    "(§ 577.6(c)(3)); below (and not a turnover): a penalty, the marker moves back 1 yard and the down is "
    "lost like any other (§ 577.6(c)(2)). Every play uses one down and moves the Game Length Puck one play.",
    "A touchdown is scored when the marker reaches the goal line (0) or goes beyond it (§ 577.1 'the 0 yard "
    "line is passed' read as reaching it; read as going strictly beyond it, a touchdown or Trips TD would "
    "come in 0.4489 of games instead of 0.4819).",
    "A 1st & Goal is earned as soon as the marker reaches the 10 yard line or inside it, on whichever of the "
    "three downs that happens, and gives three more downs from the next play (§ 577.6(e)); it is earned once: "
    "a later penalty behind the 10 does not take it away and reaching the 10 again earns nothing more "
    "(strictly inside the 10 instead: scores in 0.4542 of games instead of 0.4819). "
    "(Read literally, 'if after three downs ... earned a 1st & Goal' would play out all three first downs "
    "before the goal downs; the Touchdown Wager would then win 0.5195 of games and favour the player at "
    "1 to 1, so the paytable supports the immediate 1st & Goal.)",
    "The game ends when three downs pass without a touchdown, Trips TD or 1st & Goal, or when the three goal "
    "downs pass without a score (§ 577.6(e)(1)); so a game lasts one to six plays, as the layout's game "
    "length area 1 through 6 has it (§ 577.2(b)(6)), and the marker never goes behind the 23, the last yard "
    "the layout labels (§ 577.2(b)(4)).",
    "The extra point roll is one further throw of the same three dice after a touchdown or Trips TD "
    "(§ 577.1); it is not a down or a play and settles only the Extra Point Wager (§ 577.6(f)(1)).",
    "Extra Point Wager (§ 577.3(b)(3), § 577.8(a)): one 1 among the three dice pays 1 to 1, exactly two 1s "
    "10 to 1, three 1s 50 to 1 (only that tier), any other triple 10 to 1; anything else, or no score, loses.",
    "Quick Strike TD Wager is one wager whose payout is set by the play on which the touchdown or Trips TD "
    "is scored: play 1 8 to 1, 2 5 to 1, 3 3 to 1, 4 1 to 1 (§ 577.3(b)(4) 'in 4 downs or fewer', a down "
    "being each throw, § 577.1); a score on play 5 or 6 loses.",
    "Game Changer Wager ('Game Change Wager' in § 577.8(a)) wins on a Trips TD or a turnover as § 577.1 "
    "defines it (red 6, green 2 or 3); a game lost on downs is not a turnover (§ 577.3(d)(3) says so of the "
    "Turnover Wager; the same defined term is read the same way here).",
    "Game Length Wagers: six wagers, each winning if the game lasts exactly that many plays (downs); the "
    "extra point roll does not count (§ 577.3(b)(6)).",
    "Single-play wagers are settled on each down's dice, not on the yards the marker moves (§ 577.6(d)): "
    "yards gained = green total − red; a Trips TD wins the Trips TD, Cover Three, Big Play and (at 7 to 1) "
    "Over Four Yards Wagers and never counts as yards for the Under Four Yards Wager; a turnover counts as a "
    "penalty for the Penalty, Cover Three, No Gain and Under Four Yards Wagers as § 577.3(d) names it; "
    "exactly 4 yards loses both Over and Under Four Yards.",
    "The paytable of § 577.8 is fixed; the chapter offers no option.",
)


# --- One throw ---------------------------------------------------------------------------------------

def read_throw(green1: int, green2: int, red: int) -> tuple[str, int]:
    """What one throw does on the field: ("trips", 0), ("turnover", 0), ("penalty", -1) or ("gain", yards ≥ 0)."""
    if green1 == green2 == red:  # reading: a Trips TD before any total (§ 577.1, § 577.6(c)(5))
        return "trips", 0
    offense = green1 + green2
    if red == TURNOVER_RED and offense in TURNOVER_GREEN:  # § 577.1 Turnover; not a penalty
        return "turnover", 0
    if offense < red:  # § 577.6(c)(2): back 1 yard, down lost
        return "penalty", -PENALTY_YARDS
    return "gain", offense - red  # § 577.6(c)(1) and (3): 0 is no gain


def throw_effects() -> dict[tuple[str, int], Fraction]:
    """The exact distribution of one throw's effect on the field."""
    counts = Counter(read_throw(*dice) for dice in product(FACES, repeat=3))
    return {effect: Fraction(n, THROWS) for effect, n in counts.items()}


# --- The game as an absorbing Markov chain -------------------------------------------------------------

State = tuple[int, bool, int]  # (yards to the goal line, 1st & Goal earned, down 1..3)


def _after(state: State, kind: str, yards: int) -> State | str:
    """The next state, or the ending, after one play from ``state``."""
    to_go, goal, down = state
    if kind == "trips":
        return TRIPS_TD
    if kind == "turnover":
        return TURNOVER
    to_go -= yards
    if to_go <= 0:  # reading: reaching the goal line is a touchdown
        return TOUCHDOWN
    if not goal and to_go <= GOAL_LINE_AT:  # reading: 1st & Goal as soon as the marker reaches the 10
        return (to_go, True, 1)
    if down == DOWNS:  # § 577.6(e)(1): out of downs
        return DOWNS_GOAL if goal else DOWNS_FIRST
    return (to_go, goal, down + 1)


def game_endings() -> dict[tuple[str, int], Fraction]:
    """P(the game ends in each way on each play): {(ending, plays): probability}, summing to exactly 1.

    The chain is pushed forward one play at a time: the play count is the layer, so the live states are
    (yards to go, 1st & Goal earned, down) and every game is absorbed by play 2 × DOWNS.
    """
    effects = throw_effects()
    live: dict[State, Fraction] = {(START_YARDS, False, 1): Fraction(1)}
    ended: dict[tuple[str, int], Fraction] = {}
    play = 0
    while live:
        play += 1
        following: dict[State, Fraction] = {}
        for state, p in live.items():
            for (kind, yards), q in effects.items():
                nxt = _after(state, kind, yards)
                if isinstance(nxt, str):
                    ended[(nxt, play)] = ended.get((nxt, play), Fraction(0)) + p * q
                else:
                    following[nxt] = following.get(nxt, Fraction(0)) + p * q
        live = following
    assert play <= 2 * DOWNS, "a game cannot outlast two series of three downs"
    return ended


# --- The paytable (§ 577.8) ----------------------------------------------------------------------------

TOUCHDOWN_PAYS = Fraction(1)
DEFENSE_PAYS = Fraction(4, 5)
EXTRA_POINT_PAYS = {"one 1": Fraction(1), "two 1s": Fraction(10), "three 1s": Fraction(50),
                    "any other triple": Fraction(10)}
QUICK_STRIKE_PAYS = {1: Fraction(8), 2: Fraction(5), 3: Fraction(3), 4: Fraction(1)}
GAME_CHANGER_PAYS = Fraction(5)
GAME_LENGTH_PAYS = {1: Fraction(22), 2: Fraction(22), 3: Fraction(6, 5), 4: Fraction(5), 5: Fraction(3),
                    6: Fraction(6)}
PLAYS_IN_WORDS = {1: "One play", 2: "Two plays", 3: "Three plays", 4: "Four plays", 5: "Five plays",
                  6: "Six plays"}
SINGLE_PLAY_PAYS = {"trips-td": Fraction(30), "penalty": Fraction(9), "turnover": Fraction(60),
                    "cover-three": Fraction(7), "no-gain": Fraction(5), "big-play": Fraction(4),
                    "over-four": Fraction(1), "over-four-trips": Fraction(7), "under-four": Fraction(1)}


def extra_point_tier(dice: tuple[int, ...]) -> str | None:
    """The § 577.8(a) tier an extra point roll wins, or None (§ 577.3(b)(3))."""
    ones = dice.count(1)
    if ones == 3:
        return "three 1s"
    if dice[0] == dice[1] == dice[2]:
        return "any other triple"
    return {1: "one 1", 2: "two 1s"}.get(ones)


# --- Single-play wagers (§ 577.3(d), § 577.8(b)): counted over the 216 throws ----------------------------

Settle = Callable[[int, int, int], tuple[str, Fraction]]
LOSE = ("loses", Fraction(-1))


def _yards(g1: int, g2: int, r: int) -> int:
    return g1 + g2 - r  # § 577.6(d): the dice decide, not the marker


def _trips(g1: int, g2: int, r: int) -> bool:
    return g1 == g2 == r


def _turnover(g1: int, g2: int, r: int) -> bool:
    return r == TURNOVER_RED and g1 + g2 in TURNOVER_GREEN


def _penalty_or_turnover(g1: int, g2: int, r: int) -> bool:
    return g1 + g2 < r  # a turnover's green total is always below its red 6


def _wins(label: str, code: str, won: bool) -> tuple[str, Fraction]:
    return (label, SINGLE_PLAY_PAYS[code]) if won else LOSE


def _over_four(g1: int, g2: int, r: int) -> tuple[str, Fraction]:
    if _trips(g1, g2, r):
        return "Trips TD", SINGLE_PLAY_PAYS["over-four-trips"]
    return _wins("5 yards or more", "over-four", _yards(g1, g2, r) >= 5)


SINGLE_PLAY: tuple[tuple[str, str, str, Settle], ...] = (
    ("trips-td", "Trips TD Wager", "577.3(d)(1)", lambda g1, g2, r: _wins("Trips TD", "trips-td", _trips(g1, g2, r))),
    ("penalty", "Penalty Wager", "577.3(d)(2)",
     lambda g1, g2, r: _wins("penalty or turnover", "penalty", _penalty_or_turnover(g1, g2, r))),
    ("turnover", "Turnover Wager", "577.3(d)(3)",
     lambda g1, g2, r: _wins("turnover", "turnover", _turnover(g1, g2, r))),
    ("cover-three", "Cover Three Wager", "577.3(d)(4)",
     lambda g1, g2, r: _wins("Trips TD, penalty or turnover", "cover-three",
                             _trips(g1, g2, r) or _penalty_or_turnover(g1, g2, r))),
    ("no-gain", "No Gain Wager", "577.3(d)(5)",
     lambda g1, g2, r: _wins("no gain, penalty or turnover", "no-gain", _yards(g1, g2, r) <= 0)),
    ("big-play", "Big Play Wager", "577.3(d)(6)",
     lambda g1, g2, r: _wins("7 yards or more, or Trips TD", "big-play", _trips(g1, g2, r) or _yards(g1, g2, r) >= 7)),
    ("over-four", "Over Four Yards Wager", "577.3(d)(7)", _over_four),
    ("under-four", "Under Four Yards Wager", "577.3(d)(8)",
     lambda g1, g2, r: _wins("3 yards or less, penalty or turnover", "under-four",
                             not _trips(g1, g2, r) and _yards(g1, g2, r) <= 3)),
)


def _single_play_figures() -> list[core.WagerFigures]:
    rows = []
    for code, name, rule, settle in SINGLE_PLAY:
        counted = Counter(settle(*dice) for dice in product(FACES, repeat=3))
        outcomes = core.outcomes_from(((label, net, n) for (label, net), n in counted.items()), THROWS)
        rows.append(core.WagerFigures(code, name, "577.8(b)", outcomes,
                                      note=f"§ {rule}; per throw, decided by the dice (§ 577.6(d))."))
    return rows


# --- Full-game wagers (§ 577.3(b), § 577.8(a)) --------------------------------------------------------------

def _p(endings: Mapping[tuple[str, int], Fraction], test: Callable[[str, int], bool]) -> Fraction:
    return sum((p for (how, plays), p in endings.items() if test(how, plays)), Fraction(0))


def _by_play(endings: Mapping[tuple[str, int], Fraction], hows: frozenset[str] | None = None) -> dict[int, Fraction]:
    """P(the game ends on each play), counting only the endings in ``hows`` if given."""
    on: dict[int, Fraction] = {}
    for (how, plays), p in endings.items():
        if hows is None or how in hows:
            on[plays] = on.get(plays, Fraction(0)) + p
    return on


def _two_way(code: str, name: str, win: str, lose: str, net: Fraction, p: Fraction, note: str) -> core.WagerFigures:
    return core.WagerFigures(code, name, "577.8(a)", (core.Outcome(win, net, p), core.Outcome(lose, Fraction(-1), 1 - p)),
                             note=note)


def _extra_point(scored: Fraction) -> core.WagerFigures:
    rolls = Counter(extra_point_tier(dice) for dice in product(FACES, repeat=3))
    outcomes = [core.Outcome(f"score, then {tier}", EXTRA_POINT_PAYS[tier], scored * Fraction(rolls[tier], THROWS))
                for tier in EXTRA_POINT_PAYS]
    outcomes.append(core.Outcome("score, extra point missed", Fraction(-1), scored * Fraction(rolls[None], THROWS)))
    outcomes.append(core.Outcome("no score", Fraction(-1), 1 - scored))
    return core.WagerFigures("extra-point", "Extra Point Wager", "577.8(a)", tuple(outcomes),
                             note="§ 577.3(b)(3): the extra point roll's three dice after a touchdown or Trips TD.")


def _quick_strike(endings: Mapping[tuple[str, int], Fraction]) -> core.WagerFigures:
    scored_on = _by_play(endings, SCORED)
    outcomes = [core.Outcome(f"score on play {n}", pays, scored_on.get(n, Fraction(0)))
                for n, pays in QUICK_STRIKE_PAYS.items()]
    won = sum((o.probability for o in outcomes), Fraction(0))
    outcomes.append(core.Outcome("no score in 4 plays", Fraction(-1), 1 - won))
    return core.WagerFigures("quick-strike", "Quick Strike TD Wager", "577.8(a)", tuple(outcomes),
                             note="§ 577.3(b)(4): a touchdown or Trips TD in 4 downs or fewer, paid by the play.")


def _full_game_figures(endings: Mapping[tuple[str, int], Fraction]) -> list[core.WagerFigures]:
    scored = _p(endings, lambda how, plays: how in SCORED)
    changer = _p(endings, lambda how, plays: how in (TRIPS_TD, TURNOVER))
    rows = [
        _two_way("touchdown", "Touchdown Wager", "touchdown or Trips TD", "no score", TOUCHDOWN_PAYS, scored,
                 "§ 577.3(b)(1)."),
        _two_way("defense", "Defense Wager", "no score", "touchdown or Trips TD", DEFENSE_PAYS, 1 - scored,
                 "§ 577.3(b)(2)."),
        _extra_point(scored),
        _quick_strike(endings),
        _two_way("game-changer", "Game Changer Wager", "Trips TD or turnover", "neither", GAME_CHANGER_PAYS, changer,
                 "§ 577.3(b)(5); § 577.8(a) calls it the Game Change Wager. A loss on downs is not a turnover."),
    ]
    lasts = _by_play(endings)
    for n, pays in GAME_LENGTH_PAYS.items():
        rows.append(_two_way(f"game-length-{n}", f"Game Length Wager — {PLAYS_IN_WORDS[n]}", f"lasts exactly {PLAYS_IN_WORDS[n].lower()}",
                             "lasts another length", pays, lasts.get(n, Fraction(0)),
                             f"§ 577.3(b)(6): the game lasts exactly {n} play{'s' if n > 1 else ''}."))
    return rows


def analyse(options: Mapping[str, str]) -> core.Analysis:
    """Every wager's exact figures at the § 577.8 paytable (the chapter has no options)."""
    endings = game_endings()
    return core.Analysis(game=GAME_SLUG, title=TITLE, options=(), readings=READINGS,
                         wagers=(*_full_game_figures(endings), *_single_play_figures()))


# --- The simulator: whole games played throw by throw, independent of the figures above ------------------------

def _roll(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6)  # green, green, red


def _sim_single_plays(green1: int, green2: int, red: int, tallies: dict[str, core.Tally]) -> None:
    """Settle one unit on each single-play wager from this throw's dice, by § 577.3(d) read afresh."""
    offense = green1 + green2
    gained = offense - red
    trips = green1 == green2 == red
    bad = offense < red  # a penalty, or a turnover (red 6 over a 2 or 3)
    results = {
        "trips-td": 30 if trips else -1,
        "penalty": 9 if bad else -1,
        "turnover": 60 if red == 6 and offense <= 3 else -1,
        "cover-three": 7 if trips or bad else -1,
        "no-gain": 5 if gained <= 0 else -1,
        "big-play": 4 if trips or gained >= 7 else -1,
        "over-four": 7 if trips else (1 if gained >= 5 else -1),
        "under-four": 1 if gained <= 3 and not trips else -1,
    }
    for code, net in results.items():
        tallies[code].add(net)


def _sim_game(rng: random.Random, tallies: dict[str, core.Tally]) -> tuple[str, int]:
    """Play one game from the 20; settle the single-play wagers on each down; return (ending, plays)."""
    marker, down, goal_series, plays = 20, 1, False, 0
    while True:
        green1, green2, red = _roll(rng)
        plays += 1
        _sim_single_plays(green1, green2, red, tallies)
        offense = green1 + green2
        if green1 == green2 == red:
            return TRIPS_TD, plays
        if red == 6 and offense in (2, 3):
            return TURNOVER, plays
        marker += 1 if offense < red else -(offense - red)
        if marker <= 0:
            return TOUCHDOWN, plays
        if not goal_series and marker <= 10:
            goal_series, down = True, 1
            continue
        if down == 3:
            return (DOWNS_GOAL if goal_series else DOWNS_FIRST), plays
        down += 1


def _sim_settle_game(how: str, plays: int, rng: random.Random, tallies: dict[str, core.Tally]) -> None:
    scored = how in (TOUCHDOWN, TRIPS_TD)
    tallies["touchdown"].add(1 if scored else -1)
    tallies["defense"].add(-1 if scored else 0.8)
    extra = -1.0
    if scored:
        dice = _roll(rng)
        ones = dice.count(1)
        if ones == 3:
            extra = 50
        elif dice[0] == dice[1] == dice[2] or ones == 2:
            extra = 10
        elif ones == 1:
            extra = 1
    tallies["extra-point"].add(extra)
    tallies["quick-strike"].add(float(QUICK_STRIKE_PAYS[plays]) if scored and plays <= 4 else -1)
    tallies["game-changer"].add(5 if how in (TRIPS_TD, TURNOVER) else -1)
    for n, pays in GAME_LENGTH_PAYS.items():
        tallies[f"game-length-{n}"].add(float(pays) if plays == n else -1)


def simulate(options: Mapping[str, str], rounds: int, seed: int) -> dict[str, core.Tally]:
    """``rounds`` whole games with ``random.Random(seed)``: every full-game wager once per game, every
    single-play wager once per down."""
    rng = random.Random(seed)  # noqa: S311  (a reproducible cross-check, not a secret)
    codes = [*("touchdown", "defense", "extra-point", "quick-strike", "game-changer"),
             *(f"game-length-{n}" for n in GAME_LENGTH_PAYS), *(code for code, *_ in SINGLE_PLAY)]
    tallies = {code: core.Tally() for code in codes}
    for _ in range(rounds):
        how, plays = _sim_game(rng, tallies)
        _sim_settle_game(how, plays, rng, tallies)
    return tallies


GAME_SLUG = "three-dice-football"
TITLE = "Three Dice Football"
GAME = core.register(core.GameMath(
    slug=GAME_SLUG,
    title=TITLE,
    chapter="ch. 577",
    citations=("577.1", "577.2(b)", "577.3", "577.4(a)", "577.5(a)", "577.6", "577.8"),
    options=(),
    analyse=analyse,
    simulate=simulate,
    readings=READINGS,
))
