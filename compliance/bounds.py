"""What a plausible number or date is, for every form, service, model and table that holds one.

A value past these bounds is refused in words before it reaches the database, where it would end as a
server error (an integer out of range, a date past year 9999) or as a record nobody could have meant (a
receipt dated 1900, a requisition for a day in 9999).

Every integer field of the regulated models takes its range from a :class:`Bounds` here, once: the
field's validators (``validators=COUNT.validators``, so ``full_clean`` and model forms refuse in words)
and a PostgreSQL check in the model's ``Meta.constraints`` (``*COUNT.checks("quantity")``, named
``<table>_<field>_bounds``), so the database refuses the same value from raw SQL or another client.
``tests/compliance/test_model_bounds.py`` walks the models and fails on a field without both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

__all__ = [
    "COUNT",
    "COUNT_FROM_ONE",
    "DECKS_IN_PLAY",
    "DENOMINATION",
    "DICE",
    "DICE_FROM_ONE",
    "DIE_SIZE_MM",
    "DIFFERENCE",
    "EARLIEST_DAY",
    "FILE_BYTES",
    "HOURS_IN_PLAY",
    "JOKERS_PER_DECK",
    "LATEST_DAY",
    "MAX_COUNT",
    "MAX_DECKS",
    "MAX_DENOMINATION_CENTS",
    "MAX_DICE",
    "MAX_ROW_ID",
    "MAX_SERIAL",
    "MAX_TOTAL",
    "ROW_ID",
    "ROW_POSITION",
    "SERIAL",
    "SERIAL_WIDTH",
    "SHAKER_OPERATIONS",
    "TABLE_DECKS",
    "TOTAL",
    "Bounds",
    "require_count",
    "require_day_between",
    "require_filter_day",
    "require_within_bounds",
]

MAX_COUNT = 10_000_000  # coupons, dice or cards in one document: far above any real shipment
MAX_SERIAL = 999_999_999_999_999  # fifteen digits: a printed serial, well inside a database bigint
# A total over many documents (coupons distributed to date, a day's variance summed over every count):
# what a 32-bit database integer holds, rounded down, so a total refused is refused in words.
MAX_TOTAL = 2_000_000_000
MAX_DENOMINATION_CENTS = 100_000_000  # $1,000,000 stated on one coupon: no match play coupon is worth more
MAX_DICE = 99  # dice in one set, lost or returned: two digits, as the equipment forms take them
MAX_DECKS = 8  # decks at one table: a dealing shoe holds at most eight
# Row ids and sequence numbers the database assigns: its bigint ceiling. The check adds the lower bound.
MAX_ROW_ID = 9_223_372_036_854_775_807
EARLIEST_DAY = date(2000, 1, 1)  # no record of this system predates it
LATEST_DAY = date(2100, 12, 31)


@dataclass(frozen=True)
class Bounds:
    """The inclusive range a stored number must lie in, for a field's validators and the table's check."""

    minimum: int
    maximum: int

    @property
    def validators(self) -> list[MinValueValidator | MaxValueValidator]:
        return [MinValueValidator(self.minimum), MaxValueValidator(self.maximum)]

    def checks(self, *fields: str) -> list[models.BaseConstraint]:
        """One check per field, ``<table>_<field>_bounds`` (Django fills in the app label and model name);
        a NULL passes, as SQL checks let it, so a nullable field keeps its NULL."""
        return [
            models.CheckConstraint(
                condition=models.Q(**{f"{field}__range": (self.minimum, self.maximum)}),
                name=f"%(app_label)s_%(class)s_{field}_bounds",
            )
            for field in fields
        ]


COUNT = Bounds(0, MAX_COUNT)  # coupons in one document or one day's line, where 0 is a real answer
COUNT_FROM_ONE = Bounds(1, MAX_COUNT)  # a document that moves or asks for coupons moves at least one
TOTAL = Bounds(0, MAX_TOTAL)  # running totals and variances summed over many counts
DIFFERENCE = Bounds(-MAX_TOTAL, MAX_TOTAL)  # counted minus expected
SERIAL = Bounds(0, MAX_SERIAL)  # serial numbers run from 0, as coupons.ranges and coupons.ledger read them
SERIAL_WIDTH = Bounds(1, 18)  # printed width of a serial, zero-padded, as the series form takes it
DENOMINATION = Bounds(1, MAX_DENOMINATION_CENTS)  # cents; a coupon states some value (§ 525.21(c)(2))
ROW_ID = Bounds(1, MAX_ROW_ID)  # the id of a row (ids start at 1) or a link's sequence number
ROW_POSITION = Bounds(0, MAX_ROW_ID)  # "up to this row id", 0 before the first row
DICE = Bounds(0, MAX_DICE)  # dice a game needs (0: none) or dice lost or returned
DICE_FROM_ONE = Bounds(1, MAX_DICE)  # dice in a set in play
DIE_SIZE_MM = Bounds(1, 100)  # a casino die is about 19 mm on a side
HOURS_IN_PLAY = Bounds(1, 24)  # hours dice or cards may stay in play: no clause allows more than 24
TABLE_DECKS = Bounds(0, MAX_DECKS)  # the most decks a game uses (0: none)
DECKS_IN_PLAY = Bounds(1, 2)  # § 575.3(b): one deck, or two with an automated shuffler
JOKERS_PER_DECK = Bounds(1, 2)  # § 575.4(b): one joker, or two with the second torn
FILE_BYTES = Bounds(0, 64 * 1024 * 1024)  # a stored file (a logo): far above FILE_UPLOAD_MAX_MEMORY_SIZE
SHAKER_OPERATIONS = Bounds(0, 99)  # times a shaker was run at an opening inspection, as its form takes it


def field_bounds(field: models.Field) -> tuple[int, int] | None:
    """The tightest range a field's validators allow (``None``: the field has no range)."""
    lows = [v.limit_value for v in field.validators if isinstance(v, MinValueValidator)]
    highs = [v.limit_value for v in field.validators if isinstance(v, MaxValueValidator)]
    if not lows or not highs:
        return None
    return max(lows), min(highs)


def require_within_bounds(record: models.Model) -> None:
    """Every bounded number of a record about to be written within its field's range, refused in words
    naming the field otherwise (the database's check would end the request as a server error)."""
    for field in record._meta.concrete_fields:
        bounds = field_bounds(field)
        value = getattr(record, field.attname)
        if bounds is None or value is None or not isinstance(value, int):
            continue
        minimum, maximum = bounds
        what = str(field.verbose_name)
        if value < minimum:
            raise ValidationError(f"The {what} ({value:,}) cannot be below {minimum:,}; check the numbers entered.")
        if value > maximum:
            raise ValidationError(f"The {what} ({value:,}) is more than the {maximum:,} one record can hold; check "
                                  f"the numbers entered.")


def require_count(value: int, what: str, *, minimum: int = 0, maximum: int = MAX_COUNT) -> int:
    """``value`` if it is a plausible count of ``what``; a refusal in words otherwise."""
    if value < minimum:
        raise ValidationError(f"{what[:1].upper()}{what[1:]} cannot be below {minimum:,}; {value:,} was entered.")
    if value > maximum:
        raise ValidationError(f"{what[:1].upper()}{what[1:]} of {value:,} is more than the {maximum:,} one record "
                              f"can hold; check the number entered.")
    return value


def require_day_between(value: date, earliest: date, latest: date, what: str) -> date:
    """``value`` if it lies between ``earliest`` and ``latest``; a refusal naming the window otherwise."""
    if value < earliest or value > latest:
        raise ValidationError(
            f"{what[:1].upper()}{what[1:]} ({value:%-d %b %Y}) must be between {earliest:%-d %b %Y} and "
            f"{latest:%-d %b %Y}; check the date entered."
        )
    return value


def require_filter_day(value: date | None, what: str) -> date | None:
    """A date typed into a filter: any day this system can hold a record for."""
    if value is None:
        return None
    return require_day_between(value, EARLIEST_DAY, LATEST_DAY, what)


def years(n: int) -> timedelta:
    return timedelta(days=366 * n)
