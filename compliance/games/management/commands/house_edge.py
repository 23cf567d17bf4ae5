"""``python manage.py house_edge --game <slug> [--option name=value ...] --format json|table``: the exact figures of
every wager of a game (§ 521.4(1)(ii)), at the regulation's paytable unless options say otherwise."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.games.documents import FIGURE_HEADER, figure_rows
from compliance.games.math.core import OptionError
from compliance.games.math.registry import game, games


class Command(BaseCommand):
    help = "Exact probability, true odds, payout odds and house advantage of every wager of a game."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, help="one of: " + ", ".join(g.slug for g in games()))
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                            help="an option of the game's Rules Submission, e.g. --option paytable=B")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        found = game(options["game"])
        if found is None:
            raise CommandError(f"No game {options['game']!r}; the games are: {', '.join(g.slug for g in games())}.")
        chosen = {}
        for item in options["option"]:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise CommandError(f"An option is NAME=VALUE, e.g. paytable=B; {item!r} is not.")
            chosen[name.strip()] = value.strip()
        try:
            analysis = found.run(chosen)
        except OptionError as error:
            raise CommandError(str(error)) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(analysis.as_json(), indent=2, ensure_ascii=False))
            return
        rows = [FIGURE_HEADER, *figure_rows(analysis)]
        widths = [max(len(str(row[i])) for row in rows) for i in range(len(FIGURE_HEADER))]
        self.stdout.write(f"{analysis.title} — options: " + (", ".join(f"{k}={v}" for k, v in analysis.options) or "none"))
        for row in rows:
            self.stdout.write("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        self.stdout.write("\nReadings:")
        for reading in analysis.readings:
            self.stdout.write(f"- {reading}")
