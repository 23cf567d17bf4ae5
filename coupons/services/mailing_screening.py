"""Screening a mailing as a Celery job (§ 525.21(q)(7)): a list of 100,000 patrons is screened by a worker,
not inside the web request that asked for it.

:func:`screening_request` refuses at once what can be refused at once (the person, a released mailing, the
Board's lists missing or stale, § 503a.3(d)), records the request and enqueues it when the request commits.
:func:`screening_job_run` is what the task runs: it is harmless run twice. A job succeeded or failed is left as it
is; a job found *running* is one whose worker died (the task is acknowledged late and delivered again), and
it runs again — a screening that had committed its run before the worker died leaves an earlier run on
record, and the release reads the latest.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.exclusion.selectors import facility_today, require_lists_current
from compliance.roles import Capability, require_capability
from coupons.models import MailingCampaign, MailingScreening
from coupons.services.jobs import job_claim, job_finish
from coupons.services.mailing import campaign_screen, require_list_read

__all__ = ["screening_job_run", "screening_request"]

S = MailingScreening.Status


@transaction.atomic
@acts_as_user
def screening_request(*, campaign: MailingCampaign, user: Any) -> MailingScreening:
    """Ask for the mailing to be screened; the screening already waiting or running, if there is one."""
    require_capability(user, Capability.SCREEN_MAILINGS)
    campaign = MailingCampaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.is_released:
        raise ValidationError("This mailing was released to the provider; it is not screened again.")
    require_list_read(campaign)
    require_lists_current(campaign.facility, facility_today(campaign.facility))
    active = MailingScreening.objects.filter(campaign=campaign, status__in=MailingScreening.ACTIVE).first()
    if active is not None:
        return active
    job = MailingScreening.objects.create(campaign=campaign, requested_by=user)
    from coupons.tasks import screen_mailing

    transaction.on_commit(lambda: screen_mailing.delay(job.pk))
    return job


def screening_job_run(job_id: int) -> MailingScreening | None:
    """Run the screening of job ``job_id`` as the person who asked for it (see the module's docstring)."""
    job, claimed = job_claim(MailingScreening, job_id)
    if job is None or not claimed:
        return job
    try:
        run = campaign_screen(campaign=job.campaign, user=job.requested_by)
    except (ValidationError, PermissionDenied) as error:
        words = " ".join(error.messages) if isinstance(error, ValidationError) else str(error)
        return job_finish(job, S.FAILED, error=words or "The screening was refused.")
    return job_finish(job, S.SUCCEEDED, run=run, error="")
