"""Coupons mailed by a gaming service provider, § 525.21(q), screened against the exclusion lists (q)(7).

The steps, each its own service:

1. :func:`mailing_provider_register` — compliance records a mailing provider: a gaming service provider the
   facility authorizes to print and mail its coupons (q).
2. :func:`campaign_create` — marketing uploads the patron list (``coupons.mailing_csv``: a malformed file
   is refused whole, naming each line); the campaign is a draft.
3. :func:`campaign_screen` — every patron is screened against the Board's lists in force
   (``compliance.exclusion``): exact matches are excluded, near matches wait for a compliance officer's
   signed decision. Refused while a list is missing or more than 2 business days old (§ 503a.3(d)).
4. :func:`campaign_release` — a marketing supervisor releases the list to the provider: refused while a
   match awaits its decision, when the last screening is not against the lists in force today, or when a
   list is stale. Excluded patrons are left out; each remaining patron gets one coupon serial of the
   series from those marketing holds, and those coupons move to *distributed* (mailed) in the ledger in
   the same transaction; the supervisor signs. Finance then signs that it received the list (q)(4).

Readings: the serials come from coupons finance issued to marketing (§ 525.21(h)), so a mailed coupon
passes every control of the ledger; the provider prints the serial given here, and the table redeems it
like any other. The released list is the CSV of (q)(2) and the proofs PDF carries each coupon's serial as
a Code 128 barcode (q)(3).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance.actors import acting_as, acts_as_user
from compliance.exclusion.matching import Candidate
from compliance.exclusion.selectors import (
    excluded_keys,
    facility_today,
    pending_keys,
    require_lists_current,
    require_run_current,
    runs_for,
)
from compliance.exclusion.services import screening_run
from compliance.models import Facility, regulated_bulk_create
from compliance.numbers import how_many
from compliance.roles import Capability, require_capability
from compliance.services import signature_sign
from coupons.days import day_words, today
from coupons.ledger import lock_open_rows, move
from coupons.mailing_csv import PatronListError, check_patron_file, parse_patron_list
from coupons.models import (
    CouponSeries,
    CouponState,
    LedgerLine,
    MailedCoupon,
    MailingCampaign,
    MailingListFile,
    MailingListImport,
    MailingProvider,
    MailingRecipient,
)
from coupons.ranges import Span
from coupons.selectors.mailing import recipients_of
from coupons.services._common import create, marketing_day_open, require_facility, require_gates
from coupons.services.jobs import job_claim, job_finish

IS = MailingListImport.Status
log = logging.getLogger(__name__)

__all__ = ["campaign_create", "campaign_release", "campaign_screen", "list_import_and_screen", "list_import_run",
           "mailing_provider_register", "require_list_read"]


@transaction.atomic
@acts_as_user
def mailing_provider_register(*, facility: Facility, name: str, certificate_number: str, contact: str, user: Any,
                              ) -> MailingProvider:
    require_capability(user, Capability.MANAGE_MAILING_PROVIDERS)
    name, certificate_number = " ".join(name.split())[:150], " ".join(certificate_number.split())[:60]
    if not name or not certificate_number:
        raise ValidationError("Give the mailing provider's name and its Board certification or registration number.")
    if MailingProvider.objects.filter(facility=facility, name__iexact=name).exists():
        raise ValidationError(f"{name} is already a mailing provider of this facility: choose it on the mailing.")
    try:
        with transaction.atomic():
            return MailingProvider.objects.create(facility=facility, name=name, certificate_number=certificate_number,
                                                  contact=contact.strip()[:200], added_by=user)
    except IntegrityError:  # recorded a moment ago by someone else
        raise ValidationError(f"{name} is already a mailing provider of this facility.") from None


@transaction.atomic
@acts_as_user
def campaign_create(*, facility: Facility, provider: MailingProvider, series: CouponSeries, name: str,
                    patron_file: bytes, user: Any, file_name: str = "patrons.csv") -> MailingCampaign:
    """A draft mailing with its patron list kept as uploaded; a Celery job reads the list into recipients
    (``list_import_run``) once this commits, and the mailing's page follows it."""
    require_capability(user, Capability.MAIL_COUPONS)
    require_facility(series, facility)
    if provider.facility_id != facility.pk or not provider.active:
        raise ValidationError(f"{provider.name} is not a mailing provider this facility authorizes (§ 525.21(q)).")
    day = today(facility)
    if series.is_expired_on(day):
        raise ValidationError(f"{series.name} expired on {day_words(series.expires_on)}; mail a current series.")
    require_gates(series, day)
    name = " ".join(name.split())[:150]
    if not name:
        raise ValidationError("Name the mailing (the promotion it is for).")
    try:
        check_patron_file(patron_file)  # what can be refused at once: size, encoding, NUL, the header
    except PatronListError as error:
        raise ValidationError(["The patron list was not saved: " + error.problems[0], *error.problems[1:]]) from None
    campaign = create(MailingCampaign, user, facility=facility, gaming_date=day, name=name, provider=provider,
                      series=series)
    MailingListFile.objects.create(campaign=campaign, name=file_name[:255], size=len(patron_file),
                                   sha256=hashlib.sha256(patron_file).hexdigest(), data=patron_file)
    job = MailingListImport.objects.create(campaign=campaign, requested_by=user)
    from coupons.tasks import import_mailing_list

    transaction.on_commit(lambda: import_mailing_list.delay(job.pk))
    return campaign


def list_import_run(job_id: int) -> MailingListImport | None:
    """Read the kept list into recipients, all or nothing, as the person who uploaded it. Harmless run twice (a job succeeded or failed is left as it is; one found running
    lost its worker, and its recipients were rolled back with it)."""
    job, claimed = job_claim(MailingListImport, job_id)
    if job is None or not claimed:
        return job
    with acting_as(job.requested_by):
        try:
            kept = MailingListFile.objects.filter(campaign_id=job.campaign_id).first()
            if kept is None:
                return job_finish(job, IS.FAILED, problems=["The uploaded list was not kept: upload it again."])
            return _import_read(job, bytes(kept.data))
        except Exception:  # a refusal already said its words; anything else must not leave the job "running"
            log.exception("mailing list import %s failed", job.pk)
            return job_finish(job, IS.FAILED, problems=[
                f"The list could not be read (an error in the system; the administrator finds it in the log under "
                f"mailing import {job.pk}). Upload it again as a new mailing; if it fails again, tell the "
                "administrator."])


def _import_read(job: MailingListImport, data: bytes) -> MailingListImport:
    with transaction.atomic():
        try:
            patrons = parse_patron_list(data)
        except PatronListError as error:
            return job_finish(job, IS.FAILED, problems=error.problems)
        job = MailingListImport.objects.select_for_update().get(pk=job.pk)
        if job.status != IS.RUNNING or MailingRecipient.objects.filter(campaign_id=job.campaign_id).exists():
            return job
        regulated_bulk_create(MailingRecipient, [
            MailingRecipient(campaign_id=job.campaign_id, key=p.key, full_name=p.full_name,
                             date_of_birth=p.date_of_birth, address=p.address, city=p.city, state=p.state,
                             zip_code=p.zip_code)
            for p in patrons
        ], batch_size=5000)
        return job_finish(job, IS.SUCCEEDED, patrons=len(patrons))


def list_import_and_screen(job_id: int) -> MailingListImport | None:
    """The upload's job: read the list (``list_import_run``), then ask for its screening as the person who
    uploaded it; a refusal of the screening is kept on the reading, in words, for the mailing's page."""
    from coupons.services.mailing_screening import screening_request

    job = list_import_run(job_id)
    if job is None or job.status != IS.SUCCEEDED or job.campaign.screenings.exists():
        return job
    try:
        screening_request(campaign=job.campaign, user=job.requested_by)
    except (ValidationError, PermissionDenied) as refusal:
        words = " ".join(refusal.messages) if isinstance(refusal, ValidationError) else str(refusal)
        with acting_as(job.requested_by):
            job = job_finish(job, IS.SUCCEEDED, problems=[f"The list is read but not screened yet: {words}"])
    return job


def require_list_read(campaign: MailingCampaign) -> None:
    """A mailing is screened and released only once its patron list was read whole."""
    job = MailingListImport.objects.filter(campaign=campaign).first()
    if job is None or job.status == IS.SUCCEEDED:
        return  # lists uploaded before the job existed were read inside the request
    if job.active:
        raise ValidationError("The patron list is still being read; the screening can start when it is done "
                              "(this mailing's page refreshes until then).")
    raise ValidationError("The patron list was refused (the mailing's page names each problem): upload a corrected "
                          "list as a new mailing.")


def campaign_screen(*, campaign: MailingCampaign, user: Any) -> Any:
    """Screen every patron of the mailing against the exclusion lists in force (§ 525.21(q)(7))."""
    if campaign.is_released:
        raise ValidationError("This mailing was released to the provider; it is not screened again.")
    candidates = [Candidate(key=r.key, full_name=r.full_name, date_of_birth=r.date_of_birth,
                            address=r.one_line_address) for r in recipients_of(campaign)]
    return screening_run(facility=campaign.facility, subject=campaign, candidates=candidates, user=user)


def _screened(campaign: MailingCampaign, recipients: int) -> set[str]:
    """The keys to leave out, once the last screening holds against today's lists; else a refusal.

    The lists' age is counted in business days of the calendar (§ 503a.3(d)), as the screening counts it:
    the facility's calendar date, not its gaming day (which is still yesterday until the day's start hour)."""
    day = facility_today(campaign.facility)
    run = runs_for(campaign).first()
    if run is None:
        require_lists_current(campaign.facility, day)
        raise ValidationError("Screen the patron list against the exclusion lists before releasing it "
                              "(§ 525.21(q)(7)).")
    require_run_current(run, day)
    if run.candidate_count != recipients:
        raise ValidationError("The last screening did not cover every patron of the list; screen it again.")
    pending = pending_keys(run)
    if pending:
        raise ValidationError(f"{len(pending):,} patron(s) may be on an exclusion list and await a compliance "
                              f"officer's decision; the list cannot be released until each is decided "
                              f"(§ 525.21(q)(7)).")
    return excluded_keys(run)


def _serials(campaign: MailingCampaign, quantity: int) -> list[Span]:
    """The first ``quantity`` serials of the series that marketing holds, by serial."""
    rows = lock_open_rows(campaign.facility, [CouponState.ISSUED], series=campaign.series)
    spans: list[Span] = []
    wanted = quantity
    for row in rows:
        if wanted == 0:
            break
        take = min(wanted, row.quantity)
        spans.append((row.first_serial, row.first_serial + take - 1))
        wanted -= take
    if wanted:
        held = quantity - wanted
        raise ValidationError(f"Marketing holds {how_many(held)} of {campaign.series.name}, and the mailing needs "
                              f"{quantity:,}; requisition and have finance issue {wanted:,} more (§ 525.21(g)–(h)).")
    return spans


@transaction.atomic
@acts_as_user
def campaign_release(*, campaign: MailingCampaign, user: Any, password: str) -> MailingCampaign:
    """Release the screened list to the provider: one serial per patron not excluded, mailed in the ledger."""
    require_capability(user, Capability.MAIL_COUPONS)
    campaign = MailingCampaign.objects.select_for_update(of=("self",)).select_related("series", "provider", "facility").get(
        pk=campaign.pk)
    if campaign.is_released:
        raise ValidationError(f"This mailing was already released on {campaign.released_at:%-d %b %Y}.")
    require_list_read(campaign)
    day = today(campaign.facility)
    marketing_day_open(campaign.facility, day)
    require_gates(campaign.series, day)
    if campaign.series.is_expired_on(day):
        raise ValidationError(f"{campaign.series.name} expired on {day_words(campaign.series.expires_on)}.")
    recipients = recipients_of(campaign)
    excluded = _screened(campaign, len(recipients))
    mailed = [r for r in recipients if r.key not in excluded]
    if not mailed:
        raise ValidationError("Every patron of the list is excluded: there is nothing to mail.")
    spans = _serials(campaign, len(mailed))
    campaign.released_at = timezone.now()
    campaign.save(update_fields=["released_at"])
    move(document=campaign, series=campaign.series, spans=spans, kind=LedgerLine.Kind.DISTRIBUTE,
         from_states=[CouponState.ISSUED], to_state=CouponState.DISTRIBUTED, on=day,
         step="only coupons marketing holds are mailed",
         reason=f"Mailed to patrons by {campaign.provider.name}, § 525.21(q)")
    serials = [n for first, last in spans for n in range(first, last + 1)]
    regulated_bulk_create(MailedCoupon, [
        MailedCoupon(campaign=campaign, recipient=r, series=campaign.series, serial=n)
        for r, n in zip(mailed, serials, strict=True)
    ], batch_size=5000)
    signature_sign(record=campaign, slot="released", user=user, password=password, on_its_form=True)
    return campaign
