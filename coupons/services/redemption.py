"""Redemption at the table with electronic cancellation (§ 525.22; § 525.21(q)(5)–(6), (r)).

:func:`redemption_record` answers a dealer's scan: every check of § 525.22 first, reading only; then, in one
transaction, the :class:`~coupons.models.Redemption` row — the electronic
cancellation. "Never twice" is the database's: the insert races on ``UniqueConstraint(series, serial)``, so of
two scans at the same moment exactly one commits and the other is refused with what the first one did; a
trigger in the same insert refuses a coupon the ledger no longer holds as *distributed* or a day finance
processed (what the scan read before its transaction may have changed).

Readings (docs/coupons.md, "Redemption"):

* The coupon counts as electronically cancelled the moment its redemption row commits (§ 525.21(q)(6)
  "immediately upon redemption"): no later scan honours it. The ledger's move of the serial from
  *distributed* to *redeemed* is posted in batches (:mod:`coupons.services.redemption_posting`, every
  minute and first in finance's daily processing); finance's processing then cancels the paper coupon from
  the drop box (*redeemed* → *cancelled*, § 525.21(m)(2)) as before.
* Expiry is checked on the facility's gaming day, as (q)(5) asks the dealer to: a coupon expiring on
  3 Nov is good through the gaming day of 3 Nov, including its small hours on the 4th.
* A redemption takes a *shared* lock on the facility (its insert's trigger takes it): redemptions run side by
  side, while signing a day's reconciliation or finance processing (which takes the exclusive lock) waits for
  them and is never signed over a redemption still committing into its day.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError

from compliance.actors import acting_as
from compliance.gaming_day import local_time
from compliance.models import Facility, GamingTable
from compliance.raw_writes import audited_insert
from compliance.readiness import table_readiness_now
from compliance.roles import Capability, require_capability
from coupons.days import day_words, today
from coupons.models import (
    CouponRange,
    CouponSeries,
    CouponState,
    Position,
    ProgramApproval,
    Redemption,
    RedemptionAnswer,
    ScannerDevice,
    format_cents,
)
from coupons.redemption_rules import EVEN_MONEY_POSITIONS, Refusal, breakdown, position_refusal, split_serial
from coupons.selectors import closed_days, program_gate_refusals
from coupons.selectors.redemption import coupon_ranges_and_approvals_at, coupon_ranges_at, redemption_of

__all__ = ["Accepted", "Scan", "honoured_words", "redemption_record", "require_distributed", "require_usable"]

S = CouponState


@dataclass(frozen=True)
class Scan:
    """What the dealer's scanner (or the table screen) sends: § 525.22(b)–(d)."""

    serial: str
    table: GamingTable
    position: str
    chips_cents: int
    wager: str = ""


@dataclass(frozen=True)
class Accepted:
    redemption: Redemption
    message: str
    instructions: tuple[str, ...]


def _authority(facility: Facility, scan: Scan, user: Any, device: ScannerDevice | None) -> Any:
    """The account the redemption is written by: the scanner's own, bound to its table, or a dealer's."""
    if scan.table.facility_id != facility.pk:
        raise Refusal("other_facility", f"Table {scan.table.number} belongs to another facility.")
    if device is not None:
        if not device.is_active:
            raise Refusal("token_revoked", f"The scanner {device.name} was revoked; ask a supervisor for a new token.")
        if device.table_id != scan.table.pk:
            raise Refusal("wrong_table", f"The scanner {device.name} belongs to table {device.table.number}, not "
                                         f"table {scan.table.number}.")
        return device.account
    try:
        require_capability(user, Capability.REDEEM_COUPONS)
    except PermissionDenied as denied:
        raise Refusal("permission_denied", f"Only a dealer or boxperson redeems coupons (§ 525.22(b)). {denied}") from None
    return user


def _coupon(facility: Facility, text: str, on: date) -> tuple[CouponRange, int, list[ProgramApproval]]:
    """The open range holding the scanned coupon, and the facility's approvals on ``on`` (read with it, in one
    statement: :func:`coupons.selectors.redemption.coupon_ranges_and_approvals_at`)."""
    prefix, number = split_serial(text)
    rows, approvals = coupon_ranges_and_approvals_at(facility, prefix, number, on)
    if not rows:
        raise Refusal("unknown_coupon", f"No Match Play Coupon of {facility.name} has the serial {text.strip()}; "
                                        f"check the serial and do not accept the coupon.")
    if len(rows) > 1:
        names = ", ".join(sorted(row.series.name for row in rows))
        raise Refusal("ambiguous_serial", f"Serial {text.strip()} is printed on coupons of {names}; call finance "
                                          f"before accepting it.")
    return rows[0], number, approvals


def honoured_words(facility: Facility, redemption: Redemption) -> str:
    at = local_time(facility, redemption.redeemed_at)
    return (f"at table {redemption.table.number} at {at:%H:%M} on {day_words(redemption.gaming_date)}"
            + (" (cancelled at the drop-box count)" if redemption.channel == Redemption.Channel.COUNT else ""))


def require_distributed(facility: Facility, row: CouponRange, number: int) -> None:
    """The coupon is in a patron's hands: not in stock, voided, expired, redeemed or cancelled."""
    series, coupon = row.series, row.series.serial(number)
    if row.state == S.DISTRIBUTED:
        return
    if row.state in (S.REDEEMED, S.CANCELLED):
        earlier = redemption_of(series.pk, number)
        if earlier is not None:
            raise Refusal("already_redeemed", f"Coupon {coupon} was already redeemed "
                                              f"{honoured_words(facility, earlier)}; do not accept it.")
        if row.state == S.REDEEMED:
            raise Refusal("already_redeemed", f"Coupon {coupon} was already redeemed (ledger, "
                                              f"{day_words(row.since.gaming_date)}); do not accept it.")
        raise Refusal("cancelled", f"Coupon {coupon} was cancelled on {day_words(row.since.gaming_date)}; "
                                   f"do not accept it.")
    if row.state == S.VOIDED:
        raise Refusal("voided", f"Coupon {coupon} was voided on {day_words(row.since.gaming_date)}; do not accept it.")
    if row.state == S.EXPIRED:
        raise Refusal("expired", f"Coupon {coupon} expired on {day_words(series.expires_on)} (§ 525.21(q)(5)).")
    raise Refusal("not_distributed", f"Coupon {coupon} was never given to a patron (it is "
                                     f"{CouponState(row.state).label.lower()}); do not accept it and call finance.")


def require_usable(series: CouponSeries, coupon: str, on: date, table: GamingTable,
                   approvals: Sequence[ProgramApproval] | None = None) -> None:
    """Expiry (q)(5), the program's approvals (b), a banking game (a) and the series' games (c)(4).
    ``approvals``: the facility's, read once by a caller judging many coupons."""
    if series.is_expired_on(on):
        raise Refusal("expired", f"Coupon {coupon} expired on {day_words(series.expires_on)}; the dealer confirms "
                                 f"the expiry before redeeming (§ 525.21(q)(5)).")
    gates = program_gate_refusals(series, on, approvals=approvals)
    if gates:
        raise Refusal("program_not_approved", " ".join(gates))
    game = table.game
    if not game.banking:
        raise Refusal("not_banking_game", f"{game.name} is not played against the house; a Match Play Coupon is "
                                          f"redeemed only at such a table (§ 525.22(a)).")
    games = list(series.games.all())
    if games and game not in games:
        allowed = ", ".join(sorted(g.name for g in games))
        raise Refusal("game_not_allowed", f"{series.name} may be used on {allowed}, not on {game.name} "
                                          f"(§ 525.21(c)(4)).")


def _require_wager(series: CouponSeries, scan: Scan) -> None:
    game = scan.table.game
    refusal = position_refusal(game.code, game.name, scan.position)
    if refusal is not None:
        raise refusal
    positions = series.allowed_positions
    if positions and scan.position not in positions:
        raise Refusal("wager_not_allowed", f"{series.name} may only be wagered on {series.positions_words} "
                                           f"(its restrictions, § 525.21(c)(4)).")
    if series.even_money_only and scan.position not in EVEN_MONEY_POSITIONS:
        raise Refusal("wager_not_allowed", f"{series.name} may only be used on even-money wagers (its restrictions, "
                                           f"§ 525.21(c)(4)); the {Position(scan.position).label} pays more than 1 to "
                                           "1.")
    if scan.chips_cents < series.denomination_cents:
        raise Refusal("chips_below_value", f"The chips ({format_cents(scan.chips_cents)}) are worth less than the "
                                           f"coupon ({series.denomination}); the patron must wager at least "
                                           f"{series.denomination} with it (§ 525.22(b)).")


def _require_table_takes_wagers(table: GamingTable) -> None:
    """The one readiness service's verdict (``compliance.readiness``), which the board and Open read too: a
    coupon is redeemed only at an open table meeting every requirement now."""
    state = table_readiness_now(table)
    if not state.is_open:
        raise Refusal("table_closed", f"Table {table.number} is closed: a coupon is redeemed only with a wager at an "
                                      "open table (§ 525.22(a)). Do not accept it; the table opens on the table board.")
    if state.unmet:
        raise Refusal("table_not_ready", f"Table {table.number} is open in breach and takes no wager until it is "
                                         f"cured or the table closes: {state.sentence()}")


def _day_closed(through: date, gaming_date: date) -> Refusal:
    return Refusal("day_closed", f"Finance has closed {day_words(through)}; the gaming day "
                                 f"{day_words(gaming_date)} can take no more redemptions.")


def _clash_refusal(facility: Facility, clash: IntegrityError, row: CouponRange, number: int, scan: Scan) -> Refusal:
    """What a unique constraint said, for the dealer: one coupon per wager, or the coupon already redeemed."""
    if "coupon_one_per_wager" in str(clash) or "coupons_redemption.wager" in str(clash):  # PostgreSQL, SQLite
        return Refusal("one_coupon_per_wager", f"Wager {scan.wager} at table {scan.table.number} already carries "
                                               f"a coupon; a patron may use only one per wager (§ 525.22(d)).")
    earlier = redemption_of(row.series_id, number)
    words = honoured_words(facility, earlier) if earlier else "a moment ago"
    return Refusal("already_redeemed", f"Coupon {row.series.serial(number)} was already redeemed {words}; "
                                       f"do not accept it.")


def _busy(series: CouponSeries, number: int) -> Refusal:
    return Refusal("try_again", f"The ledger was busy while coupon {series.serial(number)} was being redeemed; "
                                f"nothing was recorded: scan it again.")


def _read_again(facility: Facility, series: CouponSeries, number: int) -> CouponRange:
    """The coupon's open range read again after the database refused it: still in a patron's hands?"""
    now = [r for r in coupon_ranges_at(facility, series.serial_prefix, number) if r.series_id == series.pk]
    if not now:
        raise _busy(series, number)
    require_distributed(facility, now[0], number)
    return now[0]


def _revoked(facility: Facility, device: ScannerDevice | None, said: str) -> Refusal:
    """The scanner was revoked after the scan read its token (migration 0035: the guard reads the scanner once
    the revocation, which takes the facility's lock, has committed)."""
    name = device.name if device is not None else "scanner"
    when = said.split("scanner_revoked", 1)[1].strip().split("\n", 1)[0]
    try:
        words = f" at {local_time(facility, datetime.fromisoformat(when)):%H:%M:%S}"
    except ValueError:
        words = ""
    return Refusal("token_revoked", f"The scanner {name} was revoked{words}, while this scan was being recorded; "
                                    f"nothing was recorded. Ask a supervisor for a new token.")


def _refusal(facility: Facility, clash: IntegrityError, row: CouponRange, number: int, scan: Scan,
             redemption: Redemption) -> Refusal:
    """The database's refusal (migrations ``0024_redeem_only_distributed``, ``0031``, ``0035``; the unique
    constraints) in words."""
    said, series, gaming_date = str(clash), row.series, redemption.gaming_date
    if "scanner_revoked" in said:
        return _revoked(facility, redemption.device, said)
    if "coupon_day_closed" in said:
        through = closed_days(facility).finance_through
        return _day_closed(through or gaming_date, gaming_date)
    if "coupon_moved_later" in said:
        return Refusal("try_again", f"Coupon {series.serial(number)} was last moved after today's gaming day "
                                    f"({day_words(gaming_date)}): check the facility's clock; nothing was recorded.")
    if "coupon_not_distributed" in said:
        _read_again(facility, series, number)  # refuses in words what the coupon is now
        return _busy(series, number)
    return _clash_refusal(facility, clash, row, number, scan)


AnswerOf = Callable[[Accepted], RedemptionAnswer | None]


def _write(facility: Facility, redemption: Redemption, row: CouponRange, number: int, scan: Scan,
           account: Any, answer_of: AnswerOf) -> Accepted:
    """The redemption row — the electronic cancellation — with its history row and audit event, and the
    Idempotency-Key answer, in one transaction (on PostgreSQL one statement: ``compliance.raw_writes``).
    The insert's trigger (migrations 0024, 0028; once a statement since 0031) takes the facility's share lock on
    PostgreSQL, then checks what the scan read before its transaction: the coupon still *distributed*, its day not processed by
    finance. The ledger's move is posted later (:mod:`coupons.services.redemption_posting`)."""
    accepted = _accepted(redemption, row.series, scan)

    def stored_answer(_: Any) -> list[RedemptionAnswer]:  # it names the redemption's id: built once the row has it
        return [found] if (found := answer_of(accepted)) is not None else []

    try:
        with acting_as(account):
            # The row, its history row and audit event, and the stored answer: one statement (compliance.raw_writes).
            audited_insert(redemption, then=stored_answer)
    except IntegrityError as clash:
        if "coupon_answer_key_once" in str(clash):
            raise
        raise _refusal(facility, clash, row, number, scan, redemption) from None
    return accepted


def _accepted(redemption: Redemption, series: CouponSeries, scan: Scan) -> Accepted:
    coupon, position = series.serial(redemption.serial), redemption.get_position_display()
    return Accepted(
        redemption=redemption,
        message=f"Coupon {coupon} accepted: {series.denomination} match play on {position}, electronically "
                f"cancelled.",
        instructions=(
            breakdown(series.denomination_cents, scan.chips_cents),
            "Whether the wager wins or loses, deposit the coupon in the drop box when the wager is paid or "
            "collected (§ 525.22(e)).",
            "If the wager wins, pay it by the coupon's terms (§ 525.22(b)).",
        ),
    )


def redemption_record(*, facility: Facility, scan: Scan, user: Any = None, device: ScannerDevice | None = None,
                      answer_of: AnswerOf | None = None) -> Accepted:
    """Redeem and electronically cancel one coupon, or raise :class:`Refusal` having changed nothing.

    ``answer_of``: given the accepted redemption, the :class:`RedemptionAnswer` to keep in the same
    transaction (the API's ``Idempotency-Key``), or None."""
    account = _authority(facility, scan, user, device)
    _require_table_takes_wagers(scan.table)
    gaming_date = today(facility)
    row, number, approvals = _coupon(facility, scan.serial, gaming_date)
    series, coupon = row.series, row.series.serial(number)
    require_distributed(facility, row, number)
    require_usable(series, coupon, gaming_date, scan.table, approvals)
    _require_wager(series, scan)
    redemption = Redemption(
        facility=facility, series=series, serial=number, denomination_cents=series.denomination_cents,
        gaming_date=gaming_date, table=scan.table, game=scan.table.game, position=scan.position,
        chips_cents=scan.chips_cents, wager=scan.wager, device=device, redeemed_by=account,
    )
    return _write(facility, redemption, row, number, scan, account, answer_of or (lambda accepted: None))
