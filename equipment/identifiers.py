"""How a set of dice is named in the register: one key for the ways the same identifiers get typed.

A pure function, no database. The register keys a set by its identifiers as a whole (the set's
serial, or its lot and the dice's numbers as printed on the set's label), because that is what the
floor reads off the dice and types; "LOT-A 001-006" and "lot-a 001–006" are the same set: case,
spaces and the kind of dash do not make a set new.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["dice_key"]

# Hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus, small and
# full-width hyphen-minus: all typed for the "-" of a range of serials.
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_SPACE = re.compile(r"\s+")


def dice_key(identifiers: str) -> str:
    """The register key of a set's identifiers: NFKC, one kind of dash, case and spaces ignored."""
    text = unicodedata.normalize("NFKC", identifiers)
    text = _DASHES.sub("-", text)
    return _SPACE.sub("", text).casefold()
