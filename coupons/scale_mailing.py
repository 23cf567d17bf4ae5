"""Mailed coupons' part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

Once a quarter, on the morning the Board's updated lists are imported (``compliance/exclusion/scale.py``: the plan's
first day and each quarter's first day), a mailing of the quarter's $25 Match Play series to a few thousand patrons,
through the services as marketing, compliance and finance do it (§ 525.21(q)), the clock set to each step:

* 08:15 (the first mailing) the compliance officer authorizes the mailing provider (q);
* 08:30 marketing uploads the patron list (generated people, ``compliance.exclusion.people_generator``, with some of
  the people on the lists in force among them, written as a mailing list writes them: a nickname, capitals, no
  accents, a typo); the list is read and screened against the lists (q)(7) by the jobs the upload starts (here run
  in turn, as a worker would run them);
* 08:45 the compliance officer decides each possible match held for review (a planted listed person is excluded,
  anyone else is not the same person), signed;
* 09:00 the coupons for the patrons left, printed for the mailing, received and examined by finance (§ 525.21(e)–(f))
  and issued to marketing (g)–(h); 09:15 the marketing supervisor releases the list to the provider, the coupons
  mailed in the ledger (q)(2);
* the next morning (stage 5, :func:`mailing_scale_seed`) finance receives the list for reconciliation (q)(4).

The mailing runs inside the coupons' gaming day, before its 10:00 issuance (``coupons/scale.py`` calls
:func:`quarter_mailing` each day): the day's reconciliation form then counts the mailed coupons, and a day closed by
its form could not take them later (``coupons.services._common.require_day_open``).
"""

from __future__ import annotations

import csv
import io
import time
from datetime import date, datetime, timedelta
from random import Random
from typing import Any

from django.db import transaction
from django.db.models import Max

from compliance.demo import signing_passwords
from compliance.exclusion import selectors as exclusion
from compliance.exclusion.models import ExclusionEntry, ListKind
from compliance.exclusion.people_generator import People, as_mailed
from compliance.exclusion.scale import list_import_days
from compliance.exclusion.services import match_decide
from compliance.gaming_day import day_bounds
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.services import signature_sign
from coupons.demo import _issued, _received
from coupons.models import (
    CouponRange,
    CouponSeries,
    MailingCampaign,
    MailingListImport,
    MailingProvider,
    MailingScreening,
    StorageLocation,
)
from coupons.services.mailing import (
    campaign_create,
    campaign_release,
    list_import_and_screen,
    mailing_provider_register,
)
from coupons.services.mailing_screening import screening_job_run

__all__ = ["mailing_days", "mailing_scale_seed", "quarter_mailing"]

MAILING_PATRONS = 3000  # a large casino's quarterly mailer; a smaller plan mails one patron per 1,000 redemptions
FEWEST_PATRONS = 100
PLANTED = 0.01  # of the patrons, people of the lists in force
_HEADER = ("patron_id", "first_name", "middle_name", "last_name", "date_of_birth", "address", "city", "state", "zip")


def mailing_days(plan: ScalePlan) -> list[date]:
    """The quarters' mailing days: the days the lists are imported that start the plan or a quarter."""
    return [day for day in list_import_days(plan)
            if day == plan.first_day or (day.day == 1 and day.month in (1, 4, 7, 10))]


def _at(plan: ScalePlan, day: date, minutes: int) -> datetime:
    return day_bounds(plan.facility, day)[0] + timedelta(hours=2, minutes=minutes)  # from 08:00


def _patrons(plan: ScalePlan, day: date, rng: Random) -> tuple[bytes, set[str]]:
    """The patron list (CSV, ``coupons.mailing_csv``) and the keys of the listed people planted in it."""
    count = min(MAILING_PATRONS, max(FEWEST_PATRONS, plan.redemptions_per_quarter // 1000))
    listed = _listed(plan, max(1, round(count * PLANTED)), rng)
    generator = People(seed=rng.getrandbits(64))
    rows: list[tuple[tuple[Any, ...], bool]] = []
    for _ in range(count - len(listed)):
        p = generator.person()
        rows.append(((p["first"], p["middle"], p["last"], p["born"], p["street"], p["city"], p["zip"]), False))
    for n, p in enumerate(listed):
        name, born, _address = as_mailed(p, rng, n)
        words = name.split()
        row = (words[0], " ".join(words[1:-1]), words[-1], born, p["street"], p["city"], p["zip"])
        rows.insert(rng.randrange(len(rows) + 1), (row, True))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_HEADER)
    planted = set()
    for n, ((first, middle, last, born, street, city, zip_code), is_listed) in enumerate(rows, 1):
        key = f"K{day:%y%m%d}-{n:05d}"
        writer.writerow((key, first, middle, last, born.isoformat() if born else "", street, city, "PA", zip_code))
        if is_listed:
            planted.add(key)
    return buffer.getvalue().encode(), planted


def _listed(plan: ScalePlan, count: int, rng: Random) -> list[dict[str, Any]]:
    """``count`` people of the lists in force (three of the self-exclusion list to one of the other), as people."""
    people: list[dict[str, Any]] = []
    for kind, share in ((ListKind.SELF_EXCLUSION, 0.75), (ListKind.INVOLUNTARY, 0.25)):
        in_force = exclusion.list_in_force(plan.facility, kind)
        if in_force is None:
            continue
        wanted = max(1, round(count * share))
        lines = rng.sample(range(1, in_force.row_count + 1), min(wanted, in_force.row_count))
        for entry in ExclusionEntry.objects.filter(exclusion_list=in_force, line__in=lines).order_by("line"):
            people.append({"first": entry.first_name, "middle": entry.middle_name, "last": entry.last_name,
                           "born": entry.date_of_birth, "street": entry.address or "1 Main Street",
                           "city": entry.city or "Harrisburg", "zip": entry.zip[:5] or "17101"})
    return people


def _provider(plan: ScalePlan, day: date, officer: Any) -> MailingProvider:
    found = MailingProvider.objects.filter(facility=plan.facility).order_by("pk").first()
    if found is not None:
        return found
    with travel(_at(plan, day, 15)):
        return mailing_provider_register(
            facility=plan.facility, name="Commonwealth Direct Mail, Inc.", certificate_number="GSP-2025-0117",
            contact="Dana Ortiz, lists@commonwealth-direct.example (secure upload)", user=officer)


def _screened(campaign: MailingCampaign) -> Any:
    """The upload's jobs, run as a worker runs them (each harmless run twice: with Celery eager, as in the tests and
    a bare ``manage.py``, they ran already when the upload committed); the screening run."""
    list_import_and_screen(MailingListImport.objects.get(campaign=campaign).pk)
    screening = MailingScreening.objects.filter(campaign=campaign).order_by("-pk").first()
    if screening is None:
        job = MailingListImport.objects.get(campaign=campaign)
        raise RuntimeError(f"generate_casino: the mailing {campaign} was not screened: {job.problems}")
    screening = screening_job_run(screening.pk)
    if screening is None or screening.run is None:
        raise RuntimeError(f"generate_casino: the screening of {campaign} failed: {getattr(screening, 'error', '')}")
    return screening.run


def _decided(plan: ScalePlan, run: Any, planted: set[str], officer: Any, password: str) -> int:
    """Each possible match held for review decided by the compliance officer, signed (§ 525.21(q)(7))."""
    decided = 0
    for match in exclusion.pending_matches(plan.facility).filter(run=run):
        listed = match.candidate_key in planted
        match_decide(match=match, decision="excluded" if listed else "not the same person", user=officer,
                     password=password,
                     reason=("Same person: name, date of birth and address agree with the Board's entry." if listed
                             else "Not the same person: the date of birth and the address differ from the entry."))
        decided += 1
    return decided


def quarter_mailing(*, plan: ScalePlan, day: date, series: list[CouponSeries], people: dict[Role, Any],
                    password: str, vault: StorageLocation) -> None:
    """The quarter's mailing, if ``day`` is a mailing day (see the module's docstring); ``people`` sign with
    ``password``. Before 10:00 of the gaming day, while marketing holds none of the day's coupons."""
    if day not in plan.shared.setdefault("mailing_days", set(mailing_days(plan))):
        return
    began = time.perf_counter()
    rng = plan.rng(f"mailing-{day}")
    officer, mktsup = people[Role.COMPLIANCE_OFFICER], people[Role.MARKETING_SUPERVISOR]
    mailed_series = max(series, key=lambda s: s.denomination_cents)
    provider = _provider(plan, day, officer)
    data, planted = _patrons(plan, day, rng)
    with travel(_at(plan, day, 30)):
        campaign = campaign_create(facility=plan.facility, provider=provider, series=mailed_series,
                                   name=f"{mailed_series.name} players' mailer", patron_file=data, user=mktsup,
                                   file_name=f"players-{day:%Y-%m-%d}.csv")
        run = _screened(campaign)
    with travel(_at(plan, day, 45)), transaction.atomic():
        decided = _decided(plan, run, planted, officer, password)
    excluded = len(exclusion.excluded_keys(run))
    count = run.candidate_count - excluded
    first = (CouponRange.objects.filter(series=mailed_series).aggregate(top=Max("last_serial"))["top"] or 0) + 1
    serials = (first, first + count - 1)
    with travel(_at(plan, day, 60)), transaction.atomic():
        _received(plan.facility, mailed_series, people, password, on=day, serials=serials, vault=vault,
                  invoice=f"KGP-{day:%Y%m}-MAIL")
        _issued(plan.facility, mailed_series, people, password, on=day, serials=serials)
    with travel(_at(plan, day, 75)):
        campaign_release(campaign=campaign, user=mktsup, password=password)
    plan.shared.setdefault("mailings", []).append({
        "campaign": campaign.pk, "day": day, "patrons": run.candidate_count, "planted": len(planted),
        "excluded": excluded, "decided": decided, "mailed": count, "seconds": time.perf_counter() - began})


def mailing_scale_seed(*, plan: ScalePlan) -> str:
    """Stage 5: finance receives each released list for reconciliation (q)(4), the afternoon of its mailing; and
    what the mailings did (they ran within the coupons' days, :func:`quarter_mailing`)."""
    mailings = plan.shared.get("mailings", [])
    finance = plan.people[Role.FINANCE_STAFF]
    with signing_passwords([finance]) as password:
        for mailing in mailings:
            campaign = MailingCampaign.objects.get(pk=mailing["campaign"])
            with travel(_at(plan, mailing["day"], 8 * 60)):  # 16:00
                signature_sign(record=campaign, slot="list_received", user=finance, password=password)
    if not mailings:
        return "no mailing (no mailing day in the plan)"
    total = {key: sum(m[key] for m in mailings) for key in ("patrons", "planted", "excluded", "decided", "mailed")}
    return (f"{len(mailings)} quarterly mailing(s) of the $25 series: {total['patrons']:,} patrons screened "
            f"({total['planted']} listed people planted), {total['excluded']} excluded, {total['decided']} possible "
            f"matches decided by compliance, {total['mailed']:,} coupons mailed, each list received by finance "
            f"(the mailings took {sum(m['seconds'] for m in mailings):,.1f} s within the coupons' days)")
