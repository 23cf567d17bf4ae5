"""The game catalogue and exact game math (issue 13): see docs/games.md. The engine, ``compliance.games.math``,
imports nothing from Django."""
