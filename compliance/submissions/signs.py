"""The Bureau of Gaming Operations' approval of the signs at the tables (§ 521.8(d)): "The location, size and
language of each sign required by this section shall be submitted to and approved by the Bureau of Gaming
Operations prior to its use."

Reading (also in docs/submissions.md): an approval is of a *kind* of sign the system prints — the rules and payout
odds at a table (§ 521.8(a)), the minimum and maximum wagers in force (§ 521.7(b)) and the notice of a change of
limits (§ 521.8(c)(2)(ii)) — with the location at the table, the paper size and the language the Bureau approved.
Approvals are append-only; a newer one of a kind supersedes the earlier. Until a kind has one, its sign prints only
as a preview marked "not approved for use", and a change of limits with patrons playing, whose notice is that sign,
cannot be scheduled or its sign recorded as posted. An approved sign prints at the approved size with the approval's
date, reference, location and language.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.bounds import EARLIEST_DAY
from compliance.locks import lock_facility
from compliance.models import Facility
from compliance.roles import Capability
from compliance.service_checks import clean_text, require_at_facility
from compliance.submissions import selectors
from compliance.submissions.models import SIGN_LANGUAGES, SignApproval, SignKind, SignSize

__all__ = ["sign_approval_record", "sign_use_refusal"]

_ODDS_FOR = re.compile(r"\d+\s+for\s+\d+", re.IGNORECASE)


@transaction.atomic
@acts_as_user
def sign_approval_record(*, facility: Facility, kind: str, location: str, size: str, language: str,
                         approved_on: date | None, reference: str, user: Any) -> SignApproval:
    """The Bureau approved the location, size and language of one kind of sign (§ 521.8(d)); it supersedes the
    earlier approval of that kind."""
    today = require_at_facility(user, facility, Capability.MANAGE_RULES_SUBMISSIONS)
    lock_facility(facility)  # approvals of one kind are recorded in turn
    if kind not in SignKind.values:
        raise ValidationError("Choose the kind of sign the Bureau approved.")
    if size not in SignSize.values:
        raise ValidationError("Choose the size the Bureau approved: "
                              + ", ".join(str(label) for label in SignSize.labels) + ".")
    if language not in SIGN_LANGUAGES:
        raise ValidationError(f"The system prints its signs in {', '.join(SIGN_LANGUAGES)}; a sign in another "
                              f"language is not one it prints.")
    location = clean_text(location, 300, "location at the table the Bureau approved")
    if _ODDS_FOR.search(location):
        raise ValidationError("The location is printed on the sign; state no odds there, least of all with 'for' "
                              "(§ 539.6(a)).")
    reference = clean_text(reference, 200, "Bureau's reference (its letter or file number)")
    if approved_on is None:
        raise ValidationError("Give the date of the Bureau's approval.")
    if approved_on > today:
        raise ValidationError(f"The date of the Bureau's approval ({approved_on:%-d %b %Y}) is still to come: record "
                              f"it once it has happened.")
    if approved_on < EARLIEST_DAY:
        raise ValidationError(f"The date of the Bureau's approval is before {EARLIEST_DAY:%Y}.")
    current = selectors.signs_in_force(facility).get(kind)
    if current is not None and approved_on < current.approved_on:
        raise ValidationError(f"The approval in force of this sign is dated {current.approved_on:%-d %b %Y} "
                              f"({current.reference}); an older one would not supersede it. Record the approvals "
                              f"in the order the Bureau gave them.")
    return SignApproval.objects.create(facility=facility, kind=kind, location=location, size=size,
                                       language=language, approved_on=approved_on, reference=reference,
                                       recorded_by=user)


def sign_use_refusal(facility: Facility, kind: str) -> str:
    """Words refusing the use of a kind of sign the Bureau has not approved ("" once it has)."""
    if kind in selectors.signs_in_force(facility):
        return ""
    return (f"The Bureau of Gaming Operations has not approved the location, size and language of the sign "
            f"“{SignKind(kind).label}” (§ 521.8(d)): it may not be used until the compliance officer records the "
            f"approval on the sign approvals page.")
