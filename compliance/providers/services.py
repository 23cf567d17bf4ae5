"""Writes of the provider register (58 Pa. Code ch. 528): each event the Board or its bureaus decide, recorded
by a compliance officer, the one check of § 528.7 before a provider's game or wager goes to a table, and the
certificate holder's own filings (§§ 528.2, 528.3, 528.7(2), 528.8(a), 528.9), which a permission to conduct
business before certification waits for (§ 528.8(a)(1)–(3)).

Every date is checked against the facility's gaming day: an event is recorded when it has happened (a date to
cease, § 528.8(b), is the one date that may lie ahead).
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_system, acts_as_user
from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.gaming_day import gaming_day
from compliance.models import Facility, Game, GamingTable
from compliance.newgames.rules import MAX_PICTURE_BYTES, clean_file_name, file_kind
from compliance.notifications import notification_send
from compliance.providers import selectors
from compliance.providers.filing_kinds import FINDINGS, QUALIFICATIONS, SUBJECT_ROLES, kind_of, permission_missing
from compliance.providers.models import (
    BusinessPermission,
    Certification,
    Decision,
    GamingProvider,
    OfferingApproval,
    ProviderFiling,
    ProviderFilingDocument,
    ProviderOffering,
    RenewalReminder,
    TableOffering,
)
from compliance.providers.notifications import renewal_reminder_notification
from compliance.providers.rules import expiry_of
from compliance.roles import Capability
from compliance.service_checks import clean_text, require_at_facility

__all__ = [
    "MAX_NOTES",
    "certification_record",
    "filing_record",
    "offering_add",
    "offering_lab_approval_record",
    "offering_use_approve",
    "permission_grant",
    "permission_rescind",
    "provider_register",
    "renewal_decide",
    "renewal_file",
    "renewal_reminder_notify",
    "renewal_reminders_send",
    "table_offering_assign",
    "table_offering_remove",
]


def _allowed(user: Any, facility: Facility) -> date:
    """The capability, the facility, and its gaming day today."""
    return require_at_facility(user, facility, Capability.MANAGE_GAMING_PROVIDERS)


def _past(day: date, today: date, what: str) -> date:
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise ValidationError(f"Give {what} between {EARLIEST_DAY:%Y} and {LATEST_DAY:%Y}.")
    if day > today:
        raise ValidationError(f"{what[0].upper()}{what[1:]} is still to come ({day:%-d %b %Y}): record it once it "
                              f"has happened.")
    return day


_text = clean_text


# --- The register (§ 528.1, § 528.6) ---------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def provider_register(*, facility: Facility, name: str, board_file_number: str, contact: str = "", user: Any
                      ) -> GamingProvider:
    _allowed(user, facility)
    name = _text(name, 200, "provider's name")
    number = _text(board_file_number, 40, "Board file number")
    if GamingProvider.objects.filter(name__iexact=name).exists():
        raise ValidationError(f"{name} is already on the register.")
    if GamingProvider.objects.filter(board_file_number__iexact=number).exists():
        raise ValidationError(f"Board file number {number} is already another provider's.")
    return GamingProvider.objects.create(name=name, board_file_number=number, contact=_text(contact, 300, "contact",
                                                                                            required=False))


@transaction.atomic
@acts_as_user
def offering_add(*, facility: Facility, provider: GamingProvider, game: Game | None = None, name: str = "",
                 lab_approved_on: date | None = None, user: Any) -> ProviderOffering:
    today = _allowed(user, facility)
    name = _text(name, 120, "wager or feature's name", required=False)
    if game is None and not name:
        raise ValidationError("Choose the game, or name the wager or feature (§ 528.1(1)).")
    if ProviderOffering.objects.filter(provider=provider, game=game, name__iexact=name).exists():
        raise ValidationError(f"{provider.name} already offers that.")
    if lab_approved_on is not None:
        _past(lab_approved_on, today, "the Gaming Laboratory's approval")
    return ProviderOffering.objects.create(provider=provider, game=game, name=name, lab_approved_on=lab_approved_on)


@transaction.atomic
@acts_as_user
def offering_lab_approval_record(*, facility: Facility, offering: ProviderOffering, approved_on: date, user: Any
                                 ) -> ProviderOffering:
    """The Bureau of Gaming Laboratory Operations approved the offering (§ 528.7(1))."""
    today = _allowed(user, facility)
    offering = ProviderOffering.objects.select_for_update().get(pk=offering.pk)
    if offering.lab_approved_on is not None:
        raise ValidationError(f"The Gaming Laboratory's approval of {offering} is already on record "
                              f"({offering.lab_approved_on:%-d %b %Y}).")
    offering.lab_approved_on = _past(approved_on, today, "the Gaming Laboratory's approval")
    offering.save()
    return offering


@transaction.atomic
@acts_as_user
def offering_use_approve(*, facility: Facility, offering: ProviderOffering, approved_on: date, reference: str = "",
                         user: Any) -> OfferingApproval:
    """The Board's Executive Director approved, in writing, this certificate holder's use (§ 528.7(3))."""
    today = _allowed(user, facility)
    _past(approved_on, today, "the Board's approval")
    if OfferingApproval.objects.filter(facility=facility, offering=offering).exists():
        raise ValidationError(f"The Board's approval of {offering} at {facility.name} is already on record.")
    return OfferingApproval.objects.create(facility=facility, offering=offering, approved_on=approved_on,
                                           reference=_text(reference, 100, "reference", required=False))


# --- Certification, § 528.4 ------------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def certification_record(*, facility: Facility, provider: GamingProvider, approved_on: date,
                         certificate_number: str = "", user: Any) -> Certification:
    """The Board approved the provider's certification: a term of 4 years from that day (§ 528.4(a))."""
    today = _allowed(user, facility)
    _past(approved_on, today, "the Board's approval")
    terms = list(Certification.objects.select_for_update().filter(provider=provider))
    pending = [t for t in terms if t.renewal_filed_on and not t.decision]
    if pending:
        raise ValidationError(f"A renewal of {provider.name}'s certification is pending: record the Board's decision "
                              f"on it instead (§ 528.4(c)).")
    if any(t.approved_on >= approved_on for t in terms):
        raise ValidationError(f"{provider.name} already has a certification approved on or after "
                              f"{approved_on:%-d %b %Y}.")
    return Certification.objects.create(provider=provider, approved_on=approved_on, expires_on=expiry_of(approved_on),
                                        certificate_number=_text(certificate_number, 40, "certificate number",
                                                                 required=False))


def _locked(certification: Certification) -> Certification:
    return Certification.objects.select_for_update().select_related("provider").get(pk=certification.pk)


@transaction.atomic
@acts_as_user
def renewal_file(*, facility: Facility, certification: Certification, filed_on: date, user: Any) -> Certification:
    """The completed renewal application and fee were received by the Board (§ 528.4(b)): on or before the
    expiry it keeps the certification in effect until the Board decides (§ 528.4(c)); fewer than 60 days before
    the expiry it does so too and is flagged late (§ 528.4(b)). After the expiry it renews nothing: refused."""
    today = _allowed(user, facility)
    term = _locked(certification)
    _past(filed_on, today, "the filing")
    if term.renewal_filed_on is not None:
        raise ValidationError(f"A renewal of this term was already filed on {term.renewal_filed_on:%-d %b %Y}.")
    if term.decision:
        raise ValidationError("The Board has already decided on this term.")
    if filed_on < term.approved_on:
        raise ValidationError(f"A renewal cannot be filed before the term began ({term.approved_on:%-d %b %Y}).")
    if filed_on > term.expires_on:
        raise ValidationError(f"This certification expired on {term.expires_on:%-d %b %Y}; a filing after that "
                              f"renews nothing (§ 528.4(b)). Record the Board's approval of a new certification.")
    term.renewal_filed_on = filed_on
    term.save()
    return term


@transaction.atomic
@acts_as_user
def renewal_decide(*, facility: Facility, certification: Certification, decision: str, decided_on: date,
                   user: Any) -> Certification:
    """The Board's written decision on the renewal (§ 528.4(c)): approved starts a new 4-year term that day
    (§ 528.4(a)); denied ends the certification that day. Returns the term now in force or decided."""
    today = _allowed(user, facility)
    term = _locked(certification)
    if decision not in Decision.values:
        raise ValidationError("Choose approved or denied.")
    if term.renewal_filed_on is None:
        raise ValidationError("No renewal of this term is on record: record its filing first (§ 528.4(b)).")
    if term.decision:
        raise ValidationError(f"The Board already decided this renewal ({term.get_decision_display().lower()} on "
                              f"{term.decided_on:%-d %b %Y}).")
    _past(decided_on, today, "the Board's decision")
    if decided_on < term.renewal_filed_on:
        raise ValidationError(f"The decision cannot precede the filing ({term.renewal_filed_on:%-d %b %Y}).")
    if decision == Decision.APPROVED and Certification.objects.filter(provider=term.provider,
                                                                      approved_on=decided_on).exists():
        raise ValidationError(f"{term.provider.name} already has a term approved on {decided_on:%-d %b %Y}.")
    term.decision, term.decided_on = decision, decided_on
    term.save()
    if decision == Decision.DENIED:
        return term
    return Certification.objects.create(provider=term.provider, approved_on=decided_on, renews=term,
                                        expires_on=expiry_of(decided_on), certificate_number=term.certificate_number)


# --- Permission before certification, § 528.8 ---------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def permission_grant(*, facility: Facility, provider: GamingProvider, granted_on: date, reference: str = "",
                     user: Any) -> BusinessPermission:
    """The Bureau of Licensing's authorization to conduct business before certification (§ 528.8(a)): recorded
    only once this facility's filings of § 528.8(a)(1)–(3) are on record, dated on or before the grant."""
    today = _allowed(user, facility)
    _past(granted_on, today, "the permission")
    GamingProvider.objects.select_for_update().filter(pk=provider.pk).first()  # filings and grants, one at a time
    missing = permission_missing(selectors.current_filing_kinds(facility, provider, by=granted_on))
    if missing:
        raise ValidationError(f"A permission for {provider.name} to conduct business before certification cannot be "
                              f"recorded until this facility's filings of § 528.8(a)(1)–(3) are on record, dated on "
                              f"or before {granted_on:%-d %b %Y}. Missing: " + "; ".join(missing)
                              + ". Record them on the provider's page first.")
    if BusinessPermission.objects.select_for_update().filter(facility=facility, provider=provider,
                                                             rescinded_on__isnull=True).exists():
        raise ValidationError(f"{facility.name} already holds a permission for {provider.name} that has not been "
                              f"rescinded.")
    return BusinessPermission.objects.create(facility=facility, provider=provider, granted_on=granted_on,
                                             reference=_text(reference, 100, "reference", required=False))


@transaction.atomic
@acts_as_user
def permission_rescind(*, facility: Facility, permission: BusinessPermission, rescinded_on: date, cease_by: date,
                       user: Any) -> BusinessPermission:
    """The Bureau of Licensing's notice of rescission and the date by which business ceases (§ 528.8(b)–(c))."""
    today = _allowed(user, facility)
    permission = BusinessPermission.objects.select_for_update().get(pk=permission.pk, facility=facility)
    if permission.rescinded_on is not None:
        raise ValidationError(f"This permission was already rescinded on {permission.rescinded_on:%-d %b %Y}.")
    _past(rescinded_on, today, "the notice of rescission")
    if rescinded_on < permission.granted_on:
        raise ValidationError("The rescission cannot precede the permission.")
    if not rescinded_on <= cease_by <= LATEST_DAY:
        raise ValidationError("The date to cease is on or after the notice of rescission (§ 528.8(c)).")
    permission.rescinded_on, permission.cease_by = rescinded_on, cease_by
    permission.save()
    return permission


# --- Use at a table, § 528.7 --------------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def table_offering_assign(*, table: GamingTable, offering: ProviderOffering, user: Any) -> TableOffering:
    """Configure a provider's game or wager at ``table``: refused unless § 528.7 is met today."""
    today = _allowed(user, table.facility)
    table = GamingTable.objects.select_for_update(of=("self",)).select_related("facility", "game").get(pk=table.pk)
    offering = ProviderOffering.objects.select_related("provider", "game").get(pk=offering.pk)
    refusal = selectors.offering_refusal(offering, today, facility=table.facility)
    if refusal:
        raise ValidationError(refusal)
    if offering.game_id is not None and offering.game_id != table.game_id:
        raise ValidationError(f"{offering} is for {offering.game}; table {table.number} deals {table.game.name}.")
    if TableOffering.objects.filter(table=table, offering=offering, removed_on__isnull=True).exists():
        raise ValidationError(f"Table {table.number} already carries {offering}.")
    return TableOffering.objects.create(table=table, offering=offering, assigned_on=today, assigned_by=user)


@transaction.atomic
@acts_as_user
def table_offering_remove(*, table_offering: TableOffering, user: Any) -> TableOffering:
    today = _allowed(user, table_offering.table.facility)
    row = TableOffering.objects.select_for_update().get(pk=table_offering.pk)
    if row.removed_on is None:
        row.removed_on = today
        row.save()
    return row


# --- Filings, §§ 528.2, 528.3, 528.7(2), 528.8(a), 528.9 ---------------------------------------------------------

MAX_NOTES = 4000
_INDIVIDUAL_ROLES = {code for code, _, individual in SUBJECT_ROLES if individual}


def _document(upload: tuple[str, bytes] | None) -> tuple[str, bytes, str]:
    """The document's name, bytes and type (PDF, PNG or JPEG by its content, at most 5 MB), or a refusal."""
    if upload is None:
        raise ValidationError("Attach the document: a PDF, or a PNG or JPEG picture of it, at most 5 MB.")
    raw_name, data = upload
    name = clean_file_name(raw_name)
    if len(data) > MAX_PICTURE_BYTES:
        raise ValidationError(f"{name} is {len(data):,} bytes: a document is at most 5 MB ({MAX_PICTURE_BYTES:,} "
                              f"bytes). Nothing was saved.")
    kind = file_kind(data[:16])
    if not data or kind is None:
        raise ValidationError(f"{name} is not a PDF document or a PNG or JPEG image (its content says so, whatever "
                              f"its name): attach the document as one of those. Nothing was saved.")
    return name, data, kind.content_type


def _particulars(kind: str, *, subject_name: str, subject_role: str, qualification: str, finding: str,
                 summary: str) -> dict[str, str]:
    """The particulars ``kind`` asks for, checked: a qualification names who and the outcome (§ 528.3), an
    investigation its findings and conclusion (§ 528.9(a)–(b)), a report what was reported (§ 528.9(c))."""
    what = kind_of(kind)
    if what is None:
        raise ValidationError("Choose what was filed or done.")
    subject_name = _text(subject_name, 200, "individual's or entity's name", required=what.subject)
    summary = _text(summary, MAX_NOTES, what.summary.lower() or "summary", required=bool(what.summary))
    if not what.subject and (subject_name or subject_role or qualification):
        raise ValidationError(f"An individual or entity, a role and an outcome are given only for a qualification "
                              f"(§ 528.3); leave them empty for: {what.label}.")
    if what.subject and subject_role not in {code for code, _, _ in SUBJECT_ROLES}:
        raise ValidationError("Choose the role for which the individual or entity is qualified (§ 528.3(a)–(c)).")
    if what.subject and qualification not in dict(QUALIFICATIONS):
        raise ValidationError("Choose the outcome: found qualified, or a temporary or permanent credential "
                              "(§ 528.3(d)–(e)).")
    if what.subject and qualification != "qualified" and subject_role not in _INDIVIDUAL_ROLES:
        raise ValidationError("The Bureau of Licensing issues credentials to individuals (§ 528.3(d)–(e)): for an "
                              "entity, record that the Board found it qualified.")
    if what.finding != bool(finding) or (finding and finding not in dict(FINDINGS)):
        raise ValidationError("Give the conclusion of the investigation (§ 528.9(a)–(b))." if what.finding else
                              f"A conclusion is given only for an investigation (§ 528.9); leave it empty for: "
                              f"{what.label}.")
    if summary and not what.summary:
        raise ValidationError(f"Findings or a reported action are given only for an investigation or a report to "
                              f"the Board (§ 528.9); put other words in the notes for: {what.label}.")
    return {"subject_name": subject_name, "subject_role": subject_role if what.subject else "",
            "qualification": qualification if what.subject else "", "finding": finding, "summary": summary}


def _corrected(facility: Facility, provider: GamingProvider, kind: str, corrects: ProviderFiling | None,
               reason: str) -> ProviderFiling | None:
    """The filing a correction replaces: this facility's, the same provider and kind, not yet corrected (the
    provider's row is locked by the caller, and the database holds one correction per filing)."""
    reason = _text(reason, 300, "reason for the correction", required=corrects is not None)
    if corrects is None:
        if reason:
            raise ValidationError("Give a reason only when correcting a filing: choose the filing it corrects.")
        return None
    old = ProviderFiling.objects.filter(pk=corrects.pk, facility=facility).select_related("provider").first()
    if old is None:
        raise ValidationError("The filing to correct is not one of this facility's.")
    if old.provider_id != provider.pk or old.kind != kind:
        raise ValidationError(f"A correction restates the same provider and kind as the filing it corrects "
                              f"({old.what.label} of {old.provider.name}).")
    if ProviderFiling.objects.filter(corrects=old).exists():
        raise ValidationError(f"Filing #{old.pk} was already corrected: correct the latest correction instead.")
    return old


@transaction.atomic
@acts_as_user
def filing_record(*, facility: Facility, provider: GamingProvider, kind: str, filed_on: date,
                  document: tuple[str, bytes] | None, reference: str = "", notes: str = "", summary: str = "",
                  subject_name: str = "", subject_role: str = "", qualification: str = "", finding: str = "",
                  corrects: ProviderFiling | None = None, correction_reason: str = "", user: Any) -> ProviderFiling:
    """Record what this certificate holder filed or did about ``provider`` (§§ 528.2, 528.3, 528.7(2), 528.8(a),
    528.9) with its date (a gaming day not still to come) and its document; a correction is a new filing that
    replaces the one it names, never an edit."""
    today = _allowed(user, facility)
    # One filing of a provider at a time (the row, not the append-only filings, which the application may not lock)
    GamingProvider.objects.select_for_update().filter(pk=provider.pk).first()
    particulars = _particulars(kind, subject_name=subject_name, subject_role=subject_role,
                               qualification=qualification, finding=finding, summary=summary)
    _past(filed_on, today, "the date")
    old = _corrected(facility, provider, kind, corrects, correction_reason)
    if qualification == "permanent" and kind == "qualification" and not Certification.objects.filter(
            provider=provider, approved_on__lte=filed_on).exists():
        raise ValidationError(f"A permanent credential is issued once the provider is certified (§ 528.3(e)); "
                              f"{provider.name} has no certification approved on or before {filed_on:%-d %b %Y}. "
                              f"Record the Board's certification first, or a temporary credential (§ 528.3(d)).")
    name, data, content_type = _document(document)
    filing = ProviderFiling.objects.create(
        facility=facility, provider=provider, kind=kind, filed_on=filed_on,
        reference=_text(reference, 100, "reference", required=False),
        notes=_text(notes, MAX_NOTES, "notes", required=False), **particulars,
        document_name=name, content_type=content_type, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
        corrects=old, correction_reason=_text(correction_reason, 300, "reason", required=False), recorded_by=user)
    ProviderFilingDocument.objects.create(filing=filing, data=data)
    return filing


# --- Reminders to renew, § 528.4(b) --------------------------------------------------------------------------------


@transaction.atomic
@acts_as_system
def renewal_reminders_send(*, on: date | None = None) -> int:
    """Write each facility's reminder due today, once (the unique key), and queue every unsent one of today's
    stage for mail after commit. Returns the reminders written."""
    from compliance.providers.tasks import notify_renewal_reminder

    written, queue = 0, []
    for facility in Facility.objects.order_by("pk"):
        today = on or gaming_day(facility)
        for due in selectors.renewals_due(facility, today):
            reminder, created = RenewalReminder.objects.get_or_create(
                certification=due.certification, facility=facility, stage=due.stage, defaults={"due_on": today})
            written += created
            if reminder.sent_at is None:
                queue.append(reminder.pk)
    for pk in queue:
        transaction.on_commit(lambda pk=pk: notify_renewal_reminder.delay(pk))  # type: ignore[misc]
    return written


@transaction.atomic
@acts_as_system
def renewal_reminder_notify(*, reminder_id: int) -> bool:
    """Mail one reminder; marked sent only once the mail went (no one to send it to: left unsent)."""
    reminder = (RenewalReminder.objects.select_for_update(of=("self",))
                .select_related("facility", "certification__provider").filter(pk=reminder_id).first())
    if reminder is None or reminder.sent_at is not None:
        return False
    if not notification_send(renewal_reminder_notification(reminder)):
        return False
    reminder.sent_at = timezone.now()
    reminder.save()
    return True
