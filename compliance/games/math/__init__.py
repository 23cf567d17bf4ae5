"""Exact odds and house advantage of the dice games (and Asia Poker's bonus), in rational arithmetic.

Pure Python: nothing here imports Django. Each game is a module registering a :class:`~.core.GameMath`
(``core.GAMES``); ``registry.py`` imports them all.
"""
