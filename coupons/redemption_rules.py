"""The rules of § 525.22 a redemption is checked against, and the refusals a dealer reads, as data.

Pure: no queries. The service (:mod:`coupons.services.redemption`) reads the coupon and the table,
then asks these functions; the API and the table screen print the :class:`Refusal` they raise.

Every refusal has a stable machine-readable ``code`` (the API's documented list, :data:`REFUSALS`),
the HTTP status the API answers with, the clause, and a sentence for the dealer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from compliance.api_errors import REQUEST_REFUSALS
from coupons.models._common import format_cents
from coupons.models.redemption import Position

__all__ = [
    "EVEN_MONEY_POSITIONS",
    "POSITIONS_BY_GAME",
    "REFUSALS",
    "Refusal",
    "allowed_positions",
    "breakdown",
    "position_refusal",
    "split_serial",
]


@dataclass(frozen=True)
class RefusalKind:
    status: int
    clause: str
    meaning: str


# The API's documented refusal codes (docs/coupons.md, "Redemption API"): code → status, clause, meaning.
REFUSALS: dict[str, RefusalKind] = {
    "invalid_request": RefusalKind(400, "", "A field is missing or malformed; `fields` names each one."),
    "malformed_serial": RefusalKind(400, "525.21(q)(3)", "The scanned text is not one coupon's serial."),
    "one_coupon_per_wager": RefusalKind(422, "525.22(d)", "More than one coupon for one wager."),
    "unknown_coupon": RefusalKind(404, "525.21(d)", "No coupon of the facility has that serial."),
    "ambiguous_serial": RefusalKind(422, "525.21(c)(3)", "The serial matches coupons of more than one series."),
    "not_distributed": RefusalKind(422, "525.21(d)", "The coupon was never given to a patron."),
    "voided": RefusalKind(422, "525.21(h)", "The coupon was voided."),
    "expired": RefusalKind(422, "525.21(q)(5)", "The coupon is past its expiry date."),
    "already_redeemed": RefusalKind(409, "525.22", "The coupon was already redeemed."),
    "cancelled": RefusalKind(422, "525.21(m)(2)", "The coupon was cancelled."),
    "program_not_approved": RefusalKind(422, "525.21(b)", "The program's approvals are not recorded."),
    "not_banking_game": RefusalKind(422, "525.22(a)", "The table's game is not played against the house."),
    "game_not_allowed": RefusalKind(422, "525.21(c)(4)", "The coupon's series may not be used on this game."),
    "position_not_allowed": RefusalKind(422, "525.22(c)", "The wager's position does not fit the game."),
    "wager_not_allowed": RefusalKind(422, "525.21(c)(4)", "The series' restrictions exclude that wager."),
    "chips_below_value": RefusalKind(422, "525.22(b)", "The chips are worth less than the coupon."),
    "day_closed": RefusalKind(422, "525.21(m)", "Finance has closed the gaming day."),
    "try_again": RefusalKind(503, "", "The ledger was busy; nothing was recorded: send the same scan again."),
    "other_facility": RefusalKind(403, "525.21(d)", "The table or coupon belongs to another facility."),
    "table_closed": RefusalKind(409, "525.22(a)", "The table is closed: a coupon is redeemed only at an open table."),
    "table_not_ready": RefusalKind(409, "", "The table is open in breach of a requirement (its clause in the "
                                           "message): it takes no wager until the breach is cured."),
    "not_authenticated": RefusalKind(401, "", "No valid session or scanner token."),
    "token_revoked": RefusalKind(401, "", "The scanner's token was revoked."),
    "wrong_table": RefusalKind(403, "", "The scanner's token belongs to another table."),
    "permission_denied": RefusalKind(403, "525.22(b)", "The account may not redeem coupons."),
    "idempotency_key_reused": RefusalKind(422, "", "The Idempotency-Key was used for a different request."),
    "method_not_allowed": RefusalKind(405, "", "The endpoint does not take that method."),
    "not_acceptable": RefusalKind(406, "", "The API answers only application/json: ask for it in Accept (or omit "
                                           "Accept)."),
    "unsupported_media_type": RefusalKind(415, "", "Send the request body as application/json."),
    "throttled": RefusalKind(429, "", "More requests than a scanner token (API_THROTTLE_TOKEN) or a person "
                                      "(API_THROTTLE_USER) may send in the window; send again after the "
                                      "`Retry-After` header's seconds."),
    "not_found": RefusalKind(404, "", "No such resource."),
    # what the foundation refuses before any view reads the request (compliance/request_limits.py)
    **{code: RefusalKind(status, "", meaning) for code, (status, meaning) in REQUEST_REFUSALS.items()},
}


class Refusal(ValidationError):
    """A redemption refused: ``code`` from :data:`REFUSALS` and a sentence for the dealer."""

    def __init__(self, code: str, message: str, *, fields: dict[str, list[str]] | None = None) -> None:
        assert code in REFUSALS, code
        super().__init__(message, code=code)
        self.refusal_code = code
        self.sentence = message
        self.fields = fields or {}

    @property
    def status(self) -> int:
        return REFUSALS[self.refusal_code].status

    @property
    def clause(self) -> str:
        return REFUSALS[self.refusal_code].clause

    def as_body(self) -> dict[str, object]:
        """The API's one error shape."""
        return {"error": {"code": self.refusal_code, "message": self.sentence, "clause": self.clause,
                          "fields": self.fields}}


# Positions whose wager is paid at even money (1 to 1): the line wagers of Craps and Mini-Craps, Roulette's
# outside even chances, and the patron's betting area of every other banking game, where the coupon plays the
# game's main wager. Roulette's dozens pay 2 to 1. A series restricted to "even-money wagers" (§ 525.21(c)(4))
# is redeemed only on these.
EVEN_MONEY_POSITIONS: frozenset[str] = frozenset({
    Position.BETTING_AREA, Position.PASS_LINE, Position.DONT_PASS, Position.BLACK, Position.RED, Position.ODD,
    Position.EVEN, Position.LOW, Position.HIGH})

_ROULETTE = frozenset({Position.BLACK, Position.RED, Position.ODD, Position.EVEN, Position.LOW, Position.HIGH,
                       Position.FIRST_12, Position.SECOND_12, Position.THIRD_12})
_LINES = frozenset({Position.PASS_LINE, Position.DONT_PASS})

# § 525.22(c): Craps and Mini-Craps on the Pass or Don't Pass Line (2); Roulette in one of nine boxes (3);
# every other game in the patron's betting area (1). Keyed by the game's code in the registry.
POSITIONS_BY_GAME: dict[str, frozenset[str]] = {
    "craps": _LINES,
    "mini-craps": _LINES,
    "roulette": _ROULETTE,
}


def allowed_positions(game_code: str) -> frozenset[str]:
    return POSITIONS_BY_GAME.get(game_code, frozenset({Position.BETTING_AREA}))


def position_refusal(game_code: str, game_name: str, position: str) -> Refusal | None:
    allowed = allowed_positions(game_code)
    if position in allowed:
        return None
    names = ", ".join(str(Position(p).label) for p in Position.values if p in allowed)
    return Refusal("position_not_allowed",
                   f"On {game_name} a coupon may only be wagered on: {names} (§ 525.22(c)).")


_SERIAL = re.compile(r"^\s*(?:(?P<prefix>[A-Za-z][A-Za-z0-9]*)\s*-?\s*)?(?P<number>\d{1,15})\s*$", re.ASCII)


def split_serial(text: str) -> tuple[str, int]:
    """A scanned or typed serial, ``MP-0012345`` or ``0012345`` → ``("MP", 12345)``. Two serials in one
    scan are one coupon too many for one wager (§ 525.22(d))."""
    text = (text or "").strip()
    if re.search(r"[,;\s]", text) and len([t for t in re.split(r"[,;\s]+", text) if t]) > 1:
        parts = [t for t in re.split(r"[,;\s]+", text) if t]
        if all(_SERIAL.match(part) for part in parts):
            raise Refusal("one_coupon_per_wager",
                          f"{len(parts)} coupons were scanned for one wager; a patron may use only one Match Play "
                          f"Coupon per wager (§ 525.22(d)).")
    match = _SERIAL.match(text)
    if match is None:
        shown = text[:40] or "nothing"
        raise Refusal("malformed_serial", f"“{shown}” is not a coupon serial; scan the barcode again or type the "
                                          f"serial as printed, e.g. MP-0012345.")
    return (match["prefix"] or "").upper(), int(match["number"])


def breakdown(denomination_cents: int, chips_cents: int) -> str:
    """How the dealer lays the wager out, § 525.22(b)."""
    value = format_cents(denomination_cents)
    rest = chips_cents - denomination_cents
    if rest <= 0:
        return f"Place the {value} in chips on the coupon, its value visible (§ 525.22(b))."
    return (f"Break the wager down: {value} in chips on the coupon, its value visible, and the remaining "
            f"{format_cents(rest)} beside it (§ 525.22(b)).")
