"""The date rules of 58 Pa. Code ch. 528, pure: no database, so they are tested at their boundaries.

Readings (docs/providers.md):

* § 528.4(a) "valid for 4 years from the date of Board approval": the certification expires on the fourth
  anniversary of the approval and is in effect through that day (the first day excluded, the last included,
  as 1 Pa.C.S. § 1908 counts a period). An approval on 29 February expires on 28 February when the fourth
  year has no 29th (2096 → 2100).
* § 528.4(b) "at least 60 days prior to the expiration": filed on a day with 60 or more days still to run to
  the expiration date is in time; 59 is late.
* § 528.4(c): a renewal filed in time keeps the certification in effect past its expiry until the Board's
  written decision; a late renewal keeps nothing. A decision is effective on the day the Board sends it: a
  denial ends the certification that day (even before the term would have run out: the Board has decided
  the certification), an approval starts a new 4-year term that day (§ 528.4(a): renewals too).
* § 528.8(b)–(c): a permission to conduct business before certification is in effect from the day it was
  granted until the day before the date to cease in the rescission notice ("cease ... by the date").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

__all__ = [
    "APPROVED",
    "DENIED",
    "REMINDER_STAGES",
    "RENEWAL_LEAD_DAYS",
    "TERM_YEARS",
    "PermissionFacts",
    "Standing",
    "TermFacts",
    "expiry_of",
    "last_day_to_renew",
    "permission_standing",
    "reminder_stage",
    "renewal_in_time",
    "term_standing",
]

TERM_YEARS = 4
RENEWAL_LEAD_DAYS = 60
APPROVED = "approved"
DENIED = "denied"
# Reminders to renew (§ 528.4(b)): days before the expiry on which each is sent, and "late" on the first day
# a renewal is no longer in time (59 days before).
REMINDER_STAGES: tuple[tuple[str, int], ...] = (("90", 90), ("75", 75), ("61", 61), ("late", RENEWAL_LEAD_DAYS - 1))


def expiry_of(approved_on: date) -> date:
    """The fourth anniversary of the Board's approval (§ 528.4(a))."""
    try:
        return approved_on.replace(year=approved_on.year + TERM_YEARS)
    except ValueError:  # 29 February into a year without one
        return approved_on.replace(year=approved_on.year + TERM_YEARS, day=28)


def last_day_to_renew(expires_on: date) -> date:
    """The last day a renewal is filed "at least 60 days prior to the expiration" (§ 528.4(b))."""
    return expires_on - timedelta(days=RENEWAL_LEAD_DAYS)


def renewal_in_time(filed_on: date, expires_on: date) -> bool:
    return filed_on <= last_day_to_renew(expires_on)


@dataclass(frozen=True)
class TermFacts:
    """One certification term: the Board's approval, and the renewal filed against it and its decision."""

    approved_on: date
    renewal_filed_on: date | None = None
    decision: str = ""  # "", APPROVED or DENIED
    decided_on: date | None = None

    @property
    def expires_on(self) -> date:
        return expiry_of(self.approved_on)


@dataclass(frozen=True)
class Standing:
    in_effect: bool
    words: str
    clause: str


def _d(day: date) -> str:
    return f"{day:%-d %b %Y}"


def term_standing(term: TermFacts, on: date) -> Standing:
    """Whether ``term`` is in effect ``on`` that day, in words naming the clause."""
    expires = term.expires_on
    if on < term.approved_on:
        return Standing(False, f"Not yet certified: the Board's approval is dated {_d(term.approved_on)}.", "528.4(a)")
    decided_on = term.decided_on if term.decision else None
    if decided_on is not None and decided_on <= on:
        if term.decision == DENIED:
            return Standing(False, f"Not in effect: the Board denied the renewal on {_d(decided_on)} (§ 528.4(c)).",
                            "528.4(c)")
        return Standing(False, f"Superseded by the renewal the Board approved on {_d(decided_on)} (§ 528.4(a)).",
                        "528.4(a)")
    if on <= expires:
        return Standing(True, f"Certified until {_d(expires)} (4 years from the Board's approval of "
                        f"{_d(term.approved_on)}, § 528.4(a)).", "528.4(a)")
    filed = term.renewal_filed_on
    if filed is not None and renewal_in_time(filed, expires):
        return Standing(True, f"Expired {_d(expires)} but still in effect: the renewal was filed {_d(filed)}, at "
                        f"least 60 days before, and the Board has not decided it (§ 528.4(c)).", "528.4(c)")
    if filed is not None:
        return Standing(False, f"Expired {_d(expires)}: the renewal filed {_d(filed)} was late (due by "
                        f"{_d(last_day_to_renew(expires))}), so it does not keep the certification in effect "
                        f"(§ 528.4(b)–(c)).", "528.4(b)")
    return Standing(False, f"Expired {_d(expires)} with no renewal filed (§ 528.4(b)).", "528.4(b)")


@dataclass(frozen=True)
class PermissionFacts:
    granted_on: date
    cease_by: date | None = None


def permission_standing(permission: PermissionFacts, on: date) -> Standing:
    """Whether a permission to conduct business before certification is in effect ``on`` that day (§ 528.8)."""
    if on < permission.granted_on:
        return Standing(False, f"Permission to conduct business before certification granted from "
                        f"{_d(permission.granted_on)} (§ 528.8(a)).", "528.8(a)")
    if permission.cease_by is not None and on >= permission.cease_by:
        return Standing(False, f"Permission rescinded: business ceased by {_d(permission.cease_by)} "
                        f"(§ 528.8(b)–(c)).", "528.8(b)")
    if permission.cease_by is not None:
        return Standing(True, f"Permitted before certification, rescinded: business must cease by "
                        f"{_d(permission.cease_by)} (§ 528.8(b)–(c)).", "528.8(b)")
    return Standing(True, f"Permitted to conduct business before certification since {_d(permission.granted_on)} "
                    f"(§ 528.8(a)).", "528.8(a)")


def reminder_stage(term: TermFacts, on: date) -> str:
    """The renewal reminder due ``on`` that day ("" for none): the latest stage whose day has come, while no
    renewal is filed and the term has not expired or been decided."""
    if term.renewal_filed_on is not None or term.decision:
        return ""
    days_left = (term.expires_on - on).days
    if days_left < 0:
        return ""
    due = [key for key, days in REMINDER_STAGES if days_left <= days]
    return due[-1] if due else ""
