"""What a plausible number or date is, for every form and service that takes one.

A value past these bounds is refused in words before it reaches the database, where it would end as a
server error (an integer out of range, a date past year 9999) or as a record nobody could have meant (a
receipt dated 1900, a requisition for a day in 9999).
"""

from __future__ import annotations

from datetime import date, timedelta

from django.core.exceptions import ValidationError

__all__ = [
    "EARLIEST_DAY",
    "LATEST_DAY",
    "MAX_COUNT",
    "MAX_SERIAL",
    "require_count",
    "require_day_between",
    "require_filter_day",
]

MAX_COUNT = 10_000_000  # coupons, dice or cards in one document: far above any real shipment
MAX_SERIAL = 999_999_999_999_999  # fifteen digits: a printed serial, well inside a database bigint
EARLIEST_DAY = date(2000, 1, 1)  # no record of this system predates it
LATEST_DAY = date(2100, 12, 31)


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
