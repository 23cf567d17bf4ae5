"""Every game's exact figures as the PDF attached to a filing (§ 521.4(1)(ii)): in embedded Unicode fonts, nothing
printed over anything else or off the page, in the Board's words (options by their labels, no set-theory signs, no
command-line options), and every ratio of odds in lowest terms."""

from __future__ import annotations

import os
import re
from math import gcd
from pathlib import Path

import pytest

from compliance.games.documents import figures_pdf
from compliance.games.math.compare import comparisons
from compliance.games.math.registry import games
from tests.pdf_checks import assert_clean_pdf

ODDS = re.compile(r"\b(\d+) to (\d+)\b")
PRINTED_FOR = "Łukasz Żółć-Wiśniewska, Nguyễn Văn An and 王小明 (EMP-100000000001)"


def _options(slug: str) -> list[dict[str, str]]:
    game = next(g for g in games() if g.slug == slug)
    chosen = [game.defaults()]
    if slug == "props-and-hops":
        chosen.append({**game.defaults(), "payout": "150 to 1"})
    return chosen


@pytest.mark.parametrize("slug", sorted(g.slug for g in games()))
def test_the_figures_of_every_game_print_clean_with_odds_in_lowest_terms(slug):
    game = next(g for g in games() if g.slug == slug)
    for chosen in _options(slug):
        pdf = figures_pdf(game, game.run(chosen), comparisons(game, chosen),
                          facility_name="Keystone Downs Casino — Łukasz Żółć Memorial Riverboat", printed_for=PRINTED_FOR)
        if out := os.environ.get("DOCUMENTS_OUT"):
            Path(out, f"figures-{slug}.pdf").write_bytes(pdf)
        text = " ".join(assert_clean_pdf(pdf).split())
        odds = ODDS.findall(text)
        assert odds, slug
        unreduced = [f"{a} to {b}" for a, b in odds if gcd(int(a), int(b)) != 1]
        assert not unreduced, unreduced
        (options,) = re.findall(r"Options: ([^.]*)\.", text)
        assert "=" not in options and "_" not in options, options
