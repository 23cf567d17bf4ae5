"""The date rules of 58 Pa. Code ch. 528 and the legs of § 528.7, pure: no database, so they are tested at their
boundaries.

Readings (docs/providers.md):

* § 528.4(a) "valid for 4 years from the date of Board approval": the certification expires on the fourth
  anniversary of the approval and is in effect through that day (the first day excluded, the last included,
  as 1 Pa.C.S. § 1908 counts a period). An approval on 29 February expires on 28 February when the fourth
  year has no 29th (2096 → 2100).
* § 528.4(b) "at least 60 days prior to the expiration": filed on a day with 60 or more days still to run to
  the expiration date is in time; 59 is late.
* § 528.4(c) "A certification for which a completed renewal application and fee has been received by the Board
  will continue in effect until the Board sends written notification ... that the Board has approved or denied":
  any renewal received on or before the expiry keeps the certification in effect past it until the Board's
  written decision, whether it came in time or late. A late one (fewer than 60 days before, § 528.4(b)) is
  flagged late in words citing § 528.4(b), not treated as lapsed. A filing after the expiry renews nothing: the
  certification lapsed the day after its expiry. A decision is effective on the day the Board sends it: a
  denial ends the certification that day (even before the term would have run out: the Board has decided the
  certification), an approval starts a new 4-year term that day (§ 528.4(a): renewals too).
* § 528.7 "Prior to use of a gaming related service by a certificate holder": the provider certified in effect or
  holding this certificate holder's permission in effect ((4), § 528.4, § 528.8), the Bureau of Gaming Laboratory
  Operations' approval of the offering ((1)) and the Executive Director's written approval of its use here ((3)),
  each on or before the day. (2), the laboratory's costs, is recorded (``ProviderFiling``) but not checked here.
* § 528.8(b)–(c): a permission to conduct business before certification is in effect from the day it was
  granted until the day before the date to cease in the rescission notice ("cease ... by the date").
"""

from __future__ import annotations

from collections.abc import Sequence
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
    "UseProblem",
    "expiry_of",
    "last_day_to_renew",
    "late_flag",
    "permission_standing",
    "permissions_standing",
    "provider_standing",
    "reminder_stage",
    "renewal_in_time",
    "renewal_received",
    "term_standing",
    "use_problems",
    "use_refusal",
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
    flag: str = ""  # a warning that does not change the standing: a renewal received late (§ 528.4(b))


def _d(day: date) -> str:
    return f"{day:%-d %b %Y}"


def renewal_received(term: TermFacts, on: date) -> bool:
    """A renewal the Board had received by ``on``, on or before the expiry: the one § 528.4(c) continues."""
    filed = term.renewal_filed_on
    return filed is not None and filed <= on and filed <= term.expires_on


def late_flag(term: TermFacts, on: date) -> str:
    """Words flagging a renewal received late (§ 528.4(b)) and not yet decided ``on`` that day ("" for none)."""
    filed, expires = term.renewal_filed_on, term.expires_on
    if filed is None or not renewal_received(term, on) or renewal_in_time(filed, expires):
        return ""
    if term.decision and term.decided_on is not None and term.decided_on <= on:
        return ""
    return (f"Renewal filed late: received {_d(filed)}, due by {_d(last_day_to_renew(expires))} (at least 60 days "
            f"before the expiry of {_d(expires)}, § 528.4(b)). Received before the expiry, it keeps the certification "
            f"in effect until the Board decides (§ 528.4(c)).")


def term_standing(term: TermFacts, on: date) -> Standing:
    """Whether ``term`` is in effect ``on`` that day, in words naming the clause (and a flag for a late renewal)."""
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
    flag = late_flag(term, on)
    if on <= expires:
        return Standing(True, f"Certified until {_d(expires)} (4 years from the Board's approval of "
                        f"{_d(term.approved_on)}, § 528.4(a)).", "528.4(a)", flag)
    filed = term.renewal_filed_on
    if filed is not None and renewal_received(term, on):
        when = "at least 60 days before" if renewal_in_time(filed, expires) else "late, but before the expiry"
        return Standing(True, f"Expired {_d(expires)} but still in effect: the completed renewal application and fee "
                        f"were received by the Board on {_d(filed)} ({when}) and the Board has not decided it "
                        f"(§ 528.4(c)).", "528.4(c)", flag)
    if filed is not None and filed > expires:
        return Standing(False, f"Lapsed: expired {_d(expires)}; the renewal dated {_d(filed)} came after the expiry "
                        f"and renews nothing (§ 528.4(b)–(c)).", "528.4(b)")
    return Standing(False, f"Lapsed: expired {_d(expires)} with no renewal application received by the Board "
                    f"(§ 528.4(b)–(c)).", "528.4(b)")


def provider_standing(terms: Sequence[TermFacts], on: date) -> Standing:
    """A provider's certification ``on`` that day from all its terms (latest approval first): the first term in
    effect, else the latest term begun, else the first term to come, else "not certified"."""
    standings = [term_standing(t, on) for t in terms if t.approved_on <= on]
    for standing in standings:
        if standing.in_effect:
            return standing
    if standings:
        return standings[0]
    if terms:
        return term_standing(terms[-1], on)
    return Standing(False, "Not certified: no Board approval on record (§ 528.4(a)).", "528.4(a)")


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


def permissions_standing(permissions: Sequence[PermissionFacts], on: date) -> Standing:
    """A facility's permission for a provider ``on`` that day from all of them (latest grant first)."""
    standings = [permission_standing(p, on) for p in permissions]
    for standing in standings:
        if standing.in_effect:
            return standing
    if standings:
        return standings[0]
    return Standing(False, "No permission to conduct business before certification (§ 528.8(a)).", "528.8(a)")


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


@dataclass(frozen=True)
class UseProblem:
    """One leg of § 528.7 an offering fails on a day: its clause, the words, and what meets it."""

    clause: str  # "528.7(4)", "528.7(1)" or "528.7(3)"
    words: str
    remedy: str


def use_problems(*, provider_name: str, facility_name: str, certified: Standing, permitted: Standing,
                 lab_approved_on: date | None, use_approved_on: date | None, on: date) -> list[UseProblem]:
    """The legs of § 528.7 an offering fails ``on`` that day at one certificate holder's tables, in the order a
    reader meets them: the provider ((4)), the Gaming Laboratory ((1)), the Board's approval for use ((3))."""
    problems = []
    if not certified.in_effect and not permitted.in_effect:
        problems.append(UseProblem(
            "528.7(4)", f"{provider_name} is neither certified nor permitted to conduct business before certification "
            f"({certified.words.rstrip('.')}; {permitted.words.rstrip('.')})",
            "record the provider's certification or renewal (§ 528.4) or the Bureau of Licensing's permission "
            "(§ 528.8)"))
    if lab_approved_on is None or lab_approved_on > on:
        problems.append(UseProblem("528.7(1)", "the Bureau of Gaming Laboratory Operations has not approved it "
                                               "(§ 528.7(1))", "record the Gaming Laboratory's approval"))
    if use_approved_on is None or use_approved_on > on:
        problems.append(UseProblem("528.7(3)", f"the Board has not approved its use at {facility_name} (§ 528.7(3))",
                                   "record the Executive Director's written approval for use (§ 528.7(3))"))
    return problems


def use_refusal(what: str, problems: Sequence[UseProblem]) -> str:
    """Why the offering ``what`` may not be used at a table ("" when every leg holds)."""
    if not problems:
        return ""
    return f"{what} may not be used at a table (§ 528.7): " + "; ".join(p.words for p in problems) + "."
