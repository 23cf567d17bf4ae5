"""A mailing is screened by a Celery job, not inside the web request (§ 525.21(q)(7)): the request is refused at
once when it can be, recorded, run once the request commits, and harmless run twice."""

from __future__ import annotations

from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError

from compliance.exclusion.models import ScreeningRun
from coupons.models import MailingScreening
from coupons.services.mailing import campaign_create, list_import_run, mailing_provider_register
from coupons.services.mailing_screening import screening_job_run, screening_request
from tests.coupons.test_mailing import HEADER, PATRONS, lists  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

S = MailingScreening.Status


@pytest.fixture
def unscreened(program, receive, issue, lists, compliance_officer, marketing_supervisor) -> Any:  # noqa: F811
    receive(1, 100)
    issue(1, 50)
    provider = mailing_provider_register(facility=program.facility, name="Keystone Mail Services", certificate_number="GSP-1",
                                 contact="lists@keystonemail.example", user=compliance_officer)
    made = campaign_create(facility=program.facility, provider=provider, series=program.series, name="Winter mailer",
                           patron_file=(HEADER + PATRONS).encode(), user=marketing_supervisor)
    list_import_run(made.list_import.pk)  # the upload's job reads the list (its screening is the tests' own)
    return made


def test_the_page_enqueues_the_screening_and_shows_its_outcome(unscreened, marketing_supervisor, client_for,
                                                               django_capture_on_commit_callbacks):
    client = client_for(marketing_supervisor)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = client.post(f"/coupons/mailings/{unscreened.pk}/screen/")
    assert answer.status_code == 302 and len(queued) == 1
    job = MailingScreening.objects.get()
    assert job.status == S.QUEUED and not ScreeningRun.objects.exists()  # nothing screened inside the request
    waiting = client.get(f"/coupons/mailings/{unscreened.pk}/").content.decode()
    assert 'http-equiv="refresh"' in waiting and "Screening queued" in waiting
    queued[0]()  # the commit: Celery runs the task (eager here; a worker in production)
    job.refresh_from_db()
    assert job.status == S.SUCCEEDED and job.run is not None and job.run.excluded_count == 1
    done = client.get(f"/coupons/mailings/{unscreened.pk}/").content.decode()
    assert 'http-equiv="refresh"' not in done and "Last screened" in done


def test_a_stale_list_is_refused_at_once_and_nothing_is_queued(unscreened, marketing_supervisor):
    with time_machine.travel("2026-11-06 14:00:00+00:00", tick=False), \
            pytest.raises(ValidationError, match="business days"):
        screening_request(campaign=unscreened, user=marketing_supervisor)
    assert not MailingScreening.objects.exists()


def test_asking_again_while_it_waits_is_answered_with_the_same_job(unscreened, marketing_supervisor):
    first = screening_request(campaign=unscreened, user=marketing_supervisor)
    assert screening_request(campaign=unscreened, user=marketing_supervisor) == first
    assert MailingScreening.objects.count() == 1


def test_the_job_is_harmless_run_twice_and_runs_again_after_a_lost_worker(unscreened, marketing_supervisor):
    job = screening_request(campaign=unscreened, user=marketing_supervisor)
    assert screening_job_run(job.pk).status == S.SUCCEEDED
    assert screening_job_run(job.pk).status == S.SUCCEEDED  # delivered twice: nothing more
    assert ScreeningRun.objects.count() == 1
    lost = screening_request(campaign=unscreened, user=marketing_supervisor)
    lost.status = S.RUNNING  # its worker was killed mid-run
    lost.save()
    assert screening_job_run(lost.pk).status == S.SUCCEEDED and ScreeningRun.objects.count() == 2
    assert screening_job_run(999_999) is None


def test_a_refusal_at_run_time_is_recorded_and_shown(unscreened, marketing_supervisor, client_for):
    job = screening_request(campaign=unscreened, user=marketing_supervisor)
    with time_machine.travel("2026-11-06 14:00:00+00:00", tick=False):  # the lists went stale while it waited
        failed = screening_job_run(job.pk)
    assert failed.status == S.FAILED and "business days" in failed.error
    page = client_for(marketing_supervisor).get(f"/coupons/mailings/{unscreened.pk}/").content.decode()
    assert "failed" in page and "business days" in page
