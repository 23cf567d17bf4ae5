"""The text of each game's chapter of 58 Pa. Code, kept with the application (``rules_text/<game code>.txt``, one
paragraph a line, from the Pennsylvania Bulletin's text), so the complete rules print at the security podium
without reaching anything outside (§ 521.9(a))."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

__all__ = ["chapter_text"]

_HERE = Path(__file__).with_name("rules_text")


@lru_cache(maxsize=16)
def chapter_text(code: str) -> tuple[str, ...]:
    """The chapter's paragraphs, or () for a game whose chapter is not kept."""
    path = _HERE / f"{code}.txt"
    if not code.replace("-", "").isalnum() or not path.is_file():
        return ()
    return tuple(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
