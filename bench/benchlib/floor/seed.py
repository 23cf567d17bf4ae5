"""The busy floor's data, written through the services as the application would have written it (a Django child of
bench/floor_load.py, production settings, the application's role).

A fresh database: a facility, its people (each role the load signs in as, with an authenticator where the role needs
one), ``tables`` craps tables open and meeting every requirement (an approved Rules Submission in force, § 521.8(b);
their wager limits, § 521.7(a)), a $25 Match Play series with its approvals, and its coupons received two days ago;
**yesterday**: a requisition issued, coupons handed out, some redeemed at the tables, the rest returned with
marketing's signed reconciliation form — the day finance processes during the load (§ 525.21(m)); **today**:
``coupons`` issued and handed out in ranges of 4,000, for the scanners.

An existing database (``--database``): the facility named (or the first), people of the bench's own added to it,
a series of the bench's own received, issued and handed out today, and a scanner registered at each of up to
``tables`` open tables that take wagers now; finance processes the next day awaiting it, if one does.
"""

from __future__ import annotations

import secrets
from datetime import date, timedelta
from typing import Any

__all__ = ["floor_seed"]

PER_RANGE = 4000
PEOPLE = [("finsup", "FINANCE_SUPERVISOR", "finance"), ("finance", "FINANCE_STAFF", "finance"),
          ("mktsup", "MARKETING_SUPERVISOR", "marketing"), ("marketing", "MARKETING_STAFF", "marketing"),
          ("officer", "COMPLIANCE_OFFICER", "compliance"), ("shift", "SHIFT_MANAGER", "table_games")]
YESTERDAY = {"issued": 2000, "handed_out": 1500, "redeemed": 300}
POSITIONS = ["pass_line", "betting_area", "red", "black", "odd", "even", "1-18", "19-36"]


def _people(facility: Any, password: str, tag: str) -> dict[str, Any]:
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from compliance.accounts import needs_second_factor
    from compliance.actors import acting_as, system_user
    from compliance.roles import Role
    from compliance.services import profile_create

    with acting_as(system_user()):
        people = {key: profile_create(username=f"{tag}-{key}", full_name=f"Floor {key}", credential_number=f"{tag}-{key}",
                                      department_code=department, roles=[Role[role]], facilities=[facility],
                                      password=password)
                  for key, role, department in PEOPLE}
    for person in people.values():  # a password set by the system is temporary and signs nothing: choose one
        with acting_as(person):
            person.set_password(password)
            person.save(update_fields=["password"])
            if needs_second_factor(person):
                TOTPDevice.objects.create(user=person, name="Floor authenticator", confirmed=True)
    return people


def _tables_ready(facility: Any, count: int, people: dict[str, Any], password: str, today: date) -> list[Any]:
    """``count`` craps tables, open, with the Rules Submission in force and their limits (as the redemption bench's
    one table)."""
    from compliance.actors import acting_as, system_user
    from compliance.models import Game, GamingTable
    from compliance.submissions import limits as wager_limits
    from compliance.submissions import services as submissions

    asia = {"bonus_wager": "yes", "paytable": "B", "adjacent_areas": "no", "ace_low_straight_flush": "no",
            "ace_low_straight": "no", "payout_limit": "",
            "dealer_hand_setting": "Highest possible high hand, then medium hand, as the house way card shows."}
    sub = submissions.submission_draft(facility=facility, title="Floor rules", user=people["officer"])
    submissions.submission_game_set(submission=sub, code="asia-poker", values=asia, user=people["officer"])
    sub.refresh_from_db()
    submissions.submission_submit(submission=sub, user=people["officer"], password=password)
    submissions.board_decision_record(submission=sub, decision="approved", decided_on=today, effective_on=today,
                                      reference="BGO-FLOOR", user=people["officer"])
    craps = Game.objects.get(code="craps")
    tables = []
    with acting_as(system_user()):
        for n in range(1, count + 1):
            tables.append(GamingTable.objects.create(facility=facility, number=f"CR-{n:03d}", game=craps,
                                                     pit=f"Pit {(n - 1) // 20 + 1}", is_open=True))
    for table in tables:
        wager_limits.limit_change_request(table=table, minimum="25", maximum="5000", patrons_playing=False,
                                          user=people["shift"])
    return tables


def _coupons(facility: Any, people: dict[str, Any], password: str, today: date, *, coupons: int, prefix: str,
             code: str, games: list[Any], yesterday: bool) -> tuple[Any, list[tuple[int, int]]]:
    """A $25 series (its approvals, its coupons received two days ago — today in an existing database), yesterday's
    issue if asked, and today's ``coupons`` issued; the ranges of 4,000 to hand out today."""
    from compliance.actors import acting_as, system_user
    from compliance.roles import Role
    from coupons import demo, services
    from coupons.models import CouponProgram

    day = timedelta(days=1)
    first_today = (YESTERDAY["issued"] if yesterday else 0) + 1
    total = first_today - 1 + coupons
    with acting_as(system_user()):
        program = CouponProgram.objects.get(code="match-play")
        vault = services.location_create(facility=facility, name=f"Vault {code}", department="finance",
                                         user=people["officer"], bcc_approved_on=today - 60 * day,
                                         bcc_approval_reference=f"BCC-{code}")
        series = services.series_create(
            facility=facility, program=program, code=code, name=f"Match Play $25 ({code})", denomination_cents=2500,
            expires_on=today.replace(year=today.year + 1), games=games, wager_restrictions="The tables' games",
            user=people["finsup"],
            serial_prefix=prefix, serial_digits=7)
        for kind in ("design", "internal_controls"):
            services.approval_record(facility=facility, program=program, kind=kind, approved_on=today - 30 * day,
                                     reference=f"FLOOR-{code}-{kind}", series=series if kind == "design" else None,
                                     user=people["officer"], password=password)
        # Received two days ago and issued yesterday and today as the demo writes days gone by (coupons.demo: the
        # examination's line dated the day it was done, the requisition prepared the day before it was needed).
        by_role = {Role.FINANCE_SUPERVISOR: people["finsup"], Role.FINANCE_STAFF: people["finance"],
                   Role.MARKETING_SUPERVISOR: people["mktsup"], Role.MARKETING_STAFF: people["marketing"]}
        # An existing database's earlier days may be closed by finance: its shipment comes in today.
        demo._received(facility, series, by_role, password, on=today - 2 * day if yesterday else today,
                       serials=(1, total), vault=vault, invoice=code)
        if yesterday:
            demo._issued(facility, series, by_role, password, on=today - day, serials=(1, YESTERDAY["issued"]))
        demo._issued(facility, series, by_role, password, on=today, serials=(first_today, total))
    return series, [(first, min(first + PER_RANGE - 1, total)) for first in range(first_today, total + 1, PER_RANGE)]


def _yesterday(facility: Any, series: Any, tables: list[Any], people: dict[str, Any], password: str,
               today: date) -> date:
    """Yesterday handed out, redeemed at the tables (rows written as the scans then wrote them: the scan service
    records only today) and reconciled by marketing: the day finance processes during the load."""
    from compliance.actors import acting_as
    from compliance.gaming_day import day_bounds
    from coupons import services
    from coupons.models import ReconciliationForm, Redemption

    day = today - timedelta(days=1)
    handed_out = (1, YESTERDAY["handed_out"])
    services.distribution_record(facility=facility, series=series, spans=[handed_out], user=people["marketing"],
                                 gaming_date=day)
    evening = day_bounds(facility, day)[0] + timedelta(hours=12)
    for serial in range(1, YESTERDAY["redeemed"] + 1):
        table = tables[serial % len(tables)]
        with acting_as(people["shift"]):
            Redemption(facility=facility, series=series, serial=serial, denomination_cents=2500, gaming_date=day,
                       redeemed_at=evening + timedelta(seconds=30 * serial), table=table, game=table.game,
                       position="pass_line", chips_cents=2500, redeemed_by=people["shift"],
                       channel=Redemption.Channel.TABLE).save(force_insert=True)
    kept = YESTERDAY["issued"] - YESTERDAY["handed_out"]
    services.reconciliation_complete(
        facility=facility, gaming_date=day, counted_remaining={2500: kept}, user=people["mktsup"], password=password,
        disposition=ReconciliationForm.Disposition.RETURN, receiver=services.CoSigner(people["finsup"], password))
    return day


def _scanners(facility: Any, tables: list[Any], shift: Any, tag: str) -> list[dict[str, str]]:
    from coupons.redemption_rules import position_refusal
    from coupons.services.scanners import scanner_register

    found = []
    for table in tables:
        _, token = scanner_register(facility=facility, table=table, name=f"{table.number} scanner {tag}", user=shift)
        position = next(p for p in POSITIONS if position_refusal(table.game.code, table.game.name, p) is None)
        found.append({"number": table.number, "token": token, "position": position})
    return found


def _open_tables(facility: Any, count: int) -> list[Any]:
    """Up to ``count`` of the facility's banking tables that take wagers now (compliance.readiness)."""
    from compliance.readiness import facility_readiness
    from coupons.selectors.redemption import banking_tables

    ready = facility_readiness(facility)
    return [t for t in banking_tables(facility).order_by("number") if ready.get(t.pk) and ready[t.pk].takes_wagers
            ][:count]


def _day_to_process(facility: Any, today: date) -> date | None:
    """The next day finance may process in an existing database: the first unprocessed one before today whose
    marketing form is signed (None: nothing waits)."""
    from coupons.models import FinanceDayProcessing, ReconciliationForm

    done = set(FinanceDayProcessing.objects.filter(facility=facility).values_list("gaming_date", flat=True))
    for form in ReconciliationForm.objects.filter(facility=facility, gaming_date__lt=today).order_by("gaming_date"):
        if form.gaming_date not in done and form.is_complete:
            return form.gaming_date
    return None


def floor_seed(*, tables: int, coupons: int, facility_code: str = "") -> dict[str, Any]:
    """All or nothing (one transaction): the facility and its floor, or what the load adds to an existing one."""
    from django.db import transaction

    with transaction.atomic():
        return _floor_seed(tables=tables, coupons=coupons, facility_code=facility_code)


def _floor_seed(*, tables: int, coupons: int, facility_code: str) -> dict[str, Any]:
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from compliance.actors import acting_as, system_user
    from compliance.gaming_day import gaming_day
    from compliance.models import Facility

    password, tag = secrets.token_urlsafe(18), f"floor{secrets.token_hex(2)}"
    fresh = not Facility.objects.exists()
    if fresh:
        with acting_as(system_user()):
            facility = Facility.objects.create(code="floor", name="Floor Casino", certificate_holder="Floor LLC")
    else:
        found = Facility.objects.filter(code=facility_code) if facility_code else Facility.objects.order_by("pk")
        facility = found.first()
        if facility is None:
            raise SystemExit(f"no facility {facility_code!r} in this database")
    today = gaming_day(facility)
    people = _people(facility, password, tag)
    floor_tables = (_tables_ready(facility, tables, people, password, today) if fresh
                    else _open_tables(facility, tables))
    code = "mp25" if fresh else tag
    prefix = "MP" if fresh else "FL" + "".join(chr(65 + int(c, 16) % 26) for c in tag[-4:])
    games = list({table.game_id: table.game for table in floor_tables}.values())
    series, ranges = _coupons(facility, people, password, today, coupons=coupons, prefix=prefix, code=code,
                              games=games, yesterday=fresh)
    finance_day = _yesterday(facility, series, floor_tables, people, password, today) if fresh else \
        _day_to_process(facility, today)
    from coupons import services

    for first, last in ranges:  # after yesterday's lines: the ledger runs forward in gaming days
        services.distribution_record(facility=facility, series=series, spans=[(first, last)],
                                     user=people["marketing"], gaming_date=today)
    keys = {key: TOTPDevice.objects.get(user=person).key for key, person in people.items()
            if TOTPDevice.objects.filter(user=person).exists()}
    return {
        "facility": facility.code, "today": today.isoformat(), "fresh": fresh,
        "finance_day": finance_day.isoformat() if finance_day else None,
        "prefix": series.serial_prefix, "digits": series.serial_digits, "ranges": ranges,
        "tables": _scanners(facility, floor_tables, people["shift"], tag),
        "people": {key: {"username": person.username, "password": password, "totp": keys.get(key, "")}
                   for key, person in people.items()},
    }
