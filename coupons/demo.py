"""Demo data for the coupon ledger, all through the services (history, signatures and the audit chain as the
application writes them):

* ``past_quarter_demo_seed``: a $10 series received last quarter and two gaming days of it — issued, handed to
  patrons, redeemed at the craps and roulette tables, the rest returned with marketing's reconciliation form, each
  day processed by finance — so the quarterly report to the Bureau (§ 525.21(o)) has figures;
* ``coupons_demo_seed``: today's $25 series: approved, received and examined, requisitioned, issued, handed out,
  one voided; marketing's day and finance's processing of it left to do;
* ``mailing_demo_seed``: a mailing provider the facility authorizes (§ 525.21(q)) and a draft mailing of the $25
  coupons whose patron list the worker reads; screening it against the Board's lists (§ 525.21(q)(7)) and its
  release are marketing's to do;
* ``redemptions_demo_seed``: coupons redeemed today at the open craps and roulette tables.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acting_as, system_user
from compliance.demo import demo_person, signing_passwords
from compliance.gaming_day import day_bounds, gaming_day
from compliance.models import Facility, Game, GamingTable
from compliance.reports.periods import month_of, previous_quarter
from compliance.reports.services import run_request
from compliance.roles import Role
from compliance.selectors import people_holding
from compliance.services import record_cosign, signature_sign
from coupons import services
from coupons.ledger import document_type, lock_open_rows, move_rows
from coupons.models import (
    CouponProgram,
    CouponRange,
    CouponReceipt,
    CouponSeries,
    CouponState,
    LedgerLine,
    MailingCampaign,
    MailingProvider,
    ReconciliationForm,
    Redemption,
    StorageLocation,
)
from coupons.redemption_rules import Refusal
from coupons.services.mailing import campaign_create, mailing_provider_register
from coupons.services.redemption import Scan, redemption_record, require_distributed, require_usable

__all__ = ["coupons_demo_seed", "mailing_demo_seed", "past_quarter_demo_seed", "redemptions_demo_seed"]

_person = demo_person
_PEOPLE = [Role.COMPLIANCE_OFFICER, Role.FINANCE_SUPERVISOR, Role.FINANCE_STAFF, Role.MARKETING_SUPERVISOR,
           Role.MARKETING_STAFF]
_GAMES = ["craps", "roulette", "blackjack"]
_EVEN_MONEY = "Even-money wagers only; Craps: Pass or Don't Pass line."


def _locations(facility: Facility, officer: Any) -> tuple[StorageLocation, StorageLocation]:
    """Finance's vault and marketing's locked cabinet, approved by the Bureau a year ago (made once)."""
    approved = gaming_day(facility) - timedelta(days=365)
    made = []
    for name, department, reference in (("Finance vault, cage 2", "finance", "BCC-LOC-0042"),
                                        ("Marketing locked cabinet", "marketing", "BCC-LOC-0043")):
        found = StorageLocation.objects.filter(facility=facility, name=name).first()
        made.append(found or services.location_create(facility=facility, name=name, department=department,
                                                      user=officer, bcc_approved_on=approved,
                                                      bcc_approval_reference=reference))
    return made[0], made[1]


def _approved_series(facility: Facility, people: dict[Role, Any], password: str, *, code: str, name: str,
                     cents: int, prefix: str, approved_on: date) -> CouponSeries:
    """A Match Play series, its design and the program's internal controls approved by the Bureau (§ 525.21(b))."""
    officer, finsup = people[Role.COMPLIANCE_OFFICER], people[Role.FINANCE_SUPERVISOR]
    program = CouponProgram.objects.get(code="match-play")
    with acting_as(finsup):
        series = services.series_create(
            facility=facility, program=program, code=code, name=name, denomination_cents=cents,
            expires_on=gaming_day(facility) + timedelta(days=60), games=list(Game.objects.filter(code__in=_GAMES)),
            wager_restrictions=_EVEN_MONEY, even_money_only=True, user=finsup, serial_prefix=prefix)
    for kind in ("design", "internal_controls"):
        services.approval_record(facility=facility, program=program, kind=kind, approved_on=approved_on,
                                 reference=f"BGO-{approved_on:%Y}-{kind[:3].upper()}-{code.upper()}", series=series,
                                 user=officer, password=password)
    return series


def _received(facility: Facility, series: CouponSeries, people: dict[Role, Any], password: str, *, on: date,
              serials: tuple[int, int], vault: StorageLocation, invoice: str) -> None:
    """A printer's shipment recorded by finance and examined by finance and marketing (§ 525.21(e)–(f)) on ``on``."""
    first, last = serials
    receipt = services.receipt_record(
        facility=facility, series=series, received_on=on, supplier="Keystone Gaming Printers",
        invoice_number=invoice, invoice_quantity=last - first + 1, invoice_first_serial=first,
        invoice_last_serial=last, received=[serials], location=vault, user=people[Role.FINANCE_SUPERVISOR],
        password=password)
    if on < gaming_day(facility):
        _examined_then(receipt, on)
    for slot, role in (("examined_finance", Role.FINANCE_STAFF), ("examined_marketing", Role.MARKETING_STAFF)):
        record_cosign(record=receipt, slot=slot, co_signer=services.CoSigner(people[role], password))


def _examined_then(receipt: CouponReceipt, day: date) -> None:
    """The shipment into finance stock on the day it was received and examined, as the receipt's completing
    signature does it on the day it is given (``coupons.services.receipts.receipt_examined``, which dates its line
    today): the seeding, as the system, writes that line as it would have been written then."""
    with acting_as(system_user()):
        rows = lock_open_rows(receipt.facility, [CouponState.RECEIVED], series=receipt.series,
                              since__document_type=document_type(receipt), since__document_id=receipt.pk)
        move_rows(document=receipt, series=receipt.series, rows=rows, spans=None, kind=LedgerLine.Kind.EXAMINE,
                  to_state=CouponState.IN_STOCK, location=receipt.location, on=day)


def _issued(facility: Facility, series: CouponSeries, people: dict[Role, Any], password: str, *, on: date,
            serials: tuple[int, int]) -> None:
    """Marketing's requisition (§ 525.21(g)), prepared the day before for a past day, authorized and issued by finance
    on ``on`` (h)."""
    mktsup, finsup = people[Role.MARKETING_SUPERVISOR], people[Role.FINANCE_SUPERVISOR]
    today = gaming_day(facility)
    requisition = services.requisition_prepare(
        facility=facility, program=series.program, denomination_cents=series.denomination_cents,
        quantity=serials[1] - serials[0] + 1, needed_for=on, prepared_on=on - timedelta(days=1) if on < today else on,
        user=mktsup, password=password)
    signature_sign(record=requisition, slot="authorized", user=finsup, password=password)
    services.issuance_record(requisition=requisition, series=series, issued=[serials], user=finsup, password=password,
                             receiver=services.CoSigner(mktsup, password), gaming_date=on)


# The craps and roulette tables take the coupons (their games are the series'), each with the dealer the staffing
# demo places there (compliance/staffing/demo.py); the first dealer where that one is missing.
_DEALER_AT = {"CR-1": "dealer", "RL-1": "dealer4"}


def _dealers_at(facility: Facility) -> dict[str, Any]:
    first = people_holding(facility, [Role.DEALER]).order_by("pk").first()
    if first is None:
        return {}
    found = {u.username: u for u in get_user_model().objects.filter(username__in=_DEALER_AT.values())}
    return {number: found.get(username, first) for number, username in _DEALER_AT.items()}


def _position(table: GamingTable, serial: int) -> str:
    """An even-money position of the table's game (the series is even money only)."""
    if table.game.code == "craps":
        return "pass_line" if serial % 3 else "dont_pass"
    return ("red", "black", "odd", "even", "1-18", "19-36")[serial % 6]


# --- last quarter ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PastDay:
    """One gaming day of last quarter: what finance issued, what marketing handed out, and how many of those were
    redeemed at each table (the rest stay in patrons' hands; what marketing kept goes back with its form)."""

    day: date
    issued: tuple[int, int]
    distributed: int
    redeemed: dict[str, int]


def _past_days(facility: Facility) -> list[PastDay]:
    quarter = previous_quarter(gaming_day(facility))
    middle = quarter.start + timedelta(days=45)
    return [PastDay(middle, (200_001, 200_300), 260, {"CR-1": 95, "RL-1": 45}),
            PastDay(quarter.end, (200_301, 200_600), 250, {"CR-1": 100, "RL-1": 50})]


@transaction.atomic
def past_quarter_demo_seed(*, facility: Facility) -> str | None:
    """Last quarter's $10 series and two of its gaming days (idempotent: nothing once the series exists)."""
    if CouponSeries.objects.filter(facility=facility, code="mp10").exists():
        return None
    tables = {t.number: t for t in GamingTable.objects.filter(facility=facility, number__in=list(_DEALER_AT))
              .select_related("game")}
    dealers = _dealers_at(facility)
    if len(tables) < len(_DEALER_AT) or not dealers:
        return "nothing added: the demo has no craps and roulette tables or no dealer"
    people = {role: _person(facility, role) for role in _PEOPLE}
    days = _past_days(facility)
    with signing_passwords(people.values()) as password:
        try:
            with transaction.atomic():
                vault, _cabinet = _locations(facility, people[Role.COMPLIANCE_OFFICER])
                series = _approved_series(facility, people, password, code="mp10", cents=1000, prefix="MC",
                                          name="$10 Match Play (players' club)",
                                          approved_on=days[0].day - timedelta(days=60))
                _received(facility, series, people, password, on=days[0].day - timedelta(days=7),
                          serials=(200_001, 202_000), vault=vault, invoice="KGP-4102")
                redeemed = sum(_past_day(facility, series, people, password, past, tables, dealers, vault)
                               for past in days)
        except ValidationError as refusal:  # a var/ of an older demo whose days no longer allow these
            return "nothing added: " + " ".join(refusal.messages)
    return (f"$10 series of last quarter: {len(days)} gaming days ({', '.join(f'{d.day:%-d %b}' for d in days)}), "
            f"{redeemed} coupons redeemed, each day reconciled and processed")


def _past_day(facility: Facility, series: CouponSeries, people: dict[Role, Any], password: str, past: PastDay,
              tables: dict[str, GamingTable], dealers: dict[str, Any], vault: StorageLocation) -> int:
    """One gaming day of last quarter, as its people did it then; the number of coupons redeemed."""
    first, last = past.issued
    _issued(facility, series, people, password, on=past.day, serials=past.issued)
    handed_out = (first, first + past.distributed - 1)
    services.distribution_record(facility=facility, series=series, spans=[handed_out],
                                 user=people[Role.MARKETING_STAFF], gaming_date=past.day)
    serial, redeemed = first, 0
    for number, count in past.redeemed.items():
        for _ in range(count):
            _redeemed_then(facility, series, serial, tables[number], dealers[number], past.day, redeemed)
            serial, redeemed = serial + 1, redeemed + 1
    kept = last - handed_out[1]
    services.reconciliation_complete(
        facility=facility, gaming_date=past.day, counted_remaining={series.denomination_cents: kept},
        user=people[Role.MARKETING_SUPERVISOR], password=password, disposition=ReconciliationForm.Disposition.RETURN,
        receiver=services.CoSigner(people[Role.FINANCE_SUPERVISOR], password))
    services.finance_day_process(
        facility=facility, gaming_date=past.day, user=people[Role.FINANCE_STAFF], password=password,
        counted={series.denomination_cents: {"returned": kept, "redeemed": redeemed}}, restock_location=vault)
    return redeemed


def _redeemed_then(facility: Facility, series: CouponSeries, serial: int, table: GamingTable, dealer: Any, day: date,
                   nth: int) -> None:
    """A coupon redeemed at ``table`` on ``day``, recorded as the table's scan recorded it then: the redemption row
    (the electronic cancellation, § 525.21(q)(6)) after the checks of § 525.22 for that gaming day. The scan
    service itself records only today's gaming day, so the seeding (the system account) writes the row; its ledger
    move is posted by finance's processing of the day, as for any scan."""
    row = CouponRange.objects.get(series=series, first_serial__lte=serial, last_serial__gte=serial,
                                  closed_by__isnull=True)
    require_distributed(facility, row, serial)
    require_usable(series, series.serial(serial), day, table)
    evening = day_bounds(facility, day)[0] + timedelta(hours=12, minutes=3 * nth)
    with acting_as(system_user()):
        Redemption(facility=facility, series=series, serial=serial, denomination_cents=series.denomination_cents,
                   gaming_date=day, redeemed_at=evening, table=table, game=table.game,
                   position=_position(table, serial),
                   chips_cents=series.denomination_cents + (serial % 4) * 500, redeemed_by=dealer,
                   channel=Redemption.Channel.TABLE).save(force_insert=True)


# --- today -----------------------------------------------------------------------------------------------------


@transaction.atomic
def coupons_demo_seed(*, facility: Facility) -> CouponSeries | None:
    """Idempotent: does nothing when the facility already has today's series. Needs the foundation's demo people.

    Signatures need passwords: the demo people sign with a throwaway one (``compliance.demo.signing_passwords``).
    """
    if CouponSeries.objects.filter(facility=facility, code="mp25").exists():
        return None
    people = {role: _person(facility, role) for role in _PEOPLE}
    with signing_passwords(people.values()) as temporary:
        return _seed_series(facility, people, temporary)


def _seed_series(facility: Facility, people: dict[Role, Any], temporary: str) -> CouponSeries:
    mktsup = people[Role.MARKETING_SUPERVISOR]
    today = gaming_day(facility)
    vault, _cabinet = _locations(facility, people[Role.COMPLIANCE_OFFICER])
    series = _approved_series(facility, people, temporary, code="mp25", name="$25 Match Play (winter)", cents=2500,
                              prefix="MP", approved_on=today - timedelta(days=30))
    _received(facility, series, people, temporary, on=today, serials=(100_001, 110_000), vault=vault,
              invoice="KGP-4471")
    _issued(facility, series, people, temporary, on=today, serials=(100_001, 100_500))
    services.distribution_record(facility=facility, series=series, spans=[(100_001, 100_120)],
                                 user=people[Role.MARKETING_STAFF])
    services.coupons_void(facility=facility, series=series, spans=[(100_121, 100_121)], reason="Torn at the desk",
                          user=mktsup, password=temporary)
    return series


# --- the mailing ---------------------------------------------------------------------------------------------

_PATRON_HEADER = ("patron_id", "first_name", "middle_name", "last_name", "date_of_birth", "address", "city",
                  "state", "zip")
_FIRST = ["Anna", "Brian", "Carmen", "David", "Elena", "Frank", "Grace", "Hector", "Irene", "Jacob", "Karen",
          "Luis", "Megan", "Noah", "Olivia", "Paul", "Quinn", "Rachel", "Samuel", "Tara"]
_LAST = ["Becker", "Coleman", "Diaz", "Fischer", "Hughes", "Jensen", "Lopez", "Murphy", "Novak", "Patel"]
_STREETS = ["Market Street", "Front Street", "Derry Street", "State Street", "Walnut Street"]
# Patrons who are, or may be, on the Board's lists (compliance/exclusion/demo.py): the screening takes off the first
# two by itself (same name or alias and date of birth) and asks compliance about the third (a near date of birth).
_LISTED = [
    ("C-90001", "Bobby", "", "Smith", "1970-03-04", "12 Main Street", "Harrisburg", "PA", "17101"),
    ("C-90002", "Jose", "", "Alvarez", "1980-01-02", "301 Chestnut Street", "Harrisburg", "PA", "17101"),
    ("C-90003", "Liz", "", "Moretti", "1975-05-16", "14 Linden Avenue", "Scranton", "PA", "18505"),
]


def _patron_file() -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_PATRON_HEADER)
    for n in range(40):
        first, last = _FIRST[n % len(_FIRST)], _LAST[(n * 7) % len(_LAST)]
        writer.writerow((f"C-{10_001 + n}", first, "", last, f"{1950 + n % 40}-{1 + n % 12:02d}-{1 + n % 28:02d}",
                         f"{100 + 7 * n} {_STREETS[n % len(_STREETS)]}", "Harrisburg", "PA", f"171{n % 10:02d}"))
    writer.writerows(_LISTED)
    return buffer.getvalue().encode()


@transaction.atomic
def mailing_demo_seed(*, facility: Facility) -> str | None:
    """The mailing provider, authorized by the compliance officer, and a draft mailing of today's series (nothing
    when the facility has a mailing provider already)."""
    series = CouponSeries.objects.filter(facility=facility, code="mp25").first()
    if series is None or MailingProvider.objects.filter(facility=facility).exists():
        return None
    officer, mktsup = _person(facility, Role.COMPLIANCE_OFFICER), _person(facility, Role.MARKETING_SUPERVISOR)
    provider = mailing_provider_register(
        facility=facility, name="Commonwealth Direct Mail, Inc.", certificate_number="GSP-2026-0117",
        contact="Dana Ortiz, lists@commonwealth-direct.example (secure upload)", user=officer)
    campaign: MailingCampaign = campaign_create(
        facility=facility, provider=provider, series=series, name="Winter players' mailer", patron_file=_patron_file(),
        user=mktsup, file_name="winter-players.csv")
    return f"mailing provider {provider.name} authorized; draft mailing {campaign.name!r} of {len(_LISTED) + 40} " \
           "patrons waiting for its screening"


# --- today's redemptions ----------------------------------------------------------------------------------------

_TODAY = [("CR-1", 100_001, 100_016), ("RL-1", 100_017, 100_028)]  # (table, first serial, last serial)


def redemptions_demo_seed(*, facility: Facility) -> int:
    """Coupons redeemed today at the open craps and roulette tables, through the redemption service (a refusal, such
    as a table not open, is skipped). Idempotent: nothing when the facility has redemptions of today's series.
    Returns how many."""
    series = CouponSeries.objects.filter(facility=facility, code="mp25").first()
    if series is None or Redemption.objects.filter(series=series).exists():
        return 0
    tables = {t.number: t for t in GamingTable.objects.filter(facility=facility).select_related("game")}
    dealers = _dealers_at(facility)
    redeemed = 0
    for number, first, last in _TODAY:
        dealer, table = dealers.get(number), tables.get(number)
        if dealer is None or table is None:
            continue
        for serial in range(first, last + 1):
            try:
                redemption_record(facility=facility, user=dealer, scan=Scan(
                    serial=series.serial(serial), table=table, position=_position(table, serial),
                    chips_cents=series.denomination_cents + (serial % 4) * 500))
            except Refusal:
                continue
            redeemed += 1
    officer = people_holding(facility, [Role.COMPLIANCE_OFFICER]).order_by("pk").first()
    if officer is not None and redeemed:  # this month's redemptions as a report on the reports framework
        with acting_as(officer):
            month = month_of(gaming_day(facility))
            run_request(facility=facility, kind="redemptions", start=month.start, end=gaming_day(facility),
                        user=officer)
    return redeemed
