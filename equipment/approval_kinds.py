"""Which devices each game must have approved before use, as data, each citing its clause. Pure: no database.

Readings (docs/equipment.md, "Approved equipment"):

* § 539.1(b): every Sic Bo table has an electrical device approved by the Bureau of Gaming Laboratory Operations.
* § 539.1(d): Sic Bo is played with a Sic Bo shaker approved by the Bureau of Gaming Operations — manual or
  automated; the opening inspection's automated shaker is this shaker.
* § 675a.3(b), (b)(2): the High Roll Dice shaker is approved (§ 601a.10(a)) and bears the certificate holder's
  name or logo.
* § 675a.1(c), (c)(2): the High Roll Dice Extra Roll electronic system, with a device that, by a lock-out,
  refuses an Extra Roll after "no more bets". The chapter does not name the approving Bureau for it; it is part
  of the table approved under § 675a.1(b) and § 601a.10(a), so it is registered like the layout's equipment.
* § 668a.3(b), (b)(3): the Props & Hops shaker is approved and bears the name or logo.
* § 575.2(c)(1)–(3): an Asia Poker table's starting-position device is approved — the shaker (Bureau of Gaming
  Operations), the random number generator (Bureau of Gaming Laboratory Operations), the flat button (Bureau of
  Gaming Operations) — only the one the table uses.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "ApprovalKind", "kind", "kinds_for"]


@dataclass(frozen=True)
class ApprovalKind:
    code: str
    label: str
    game: str  # the game's code
    clause: str
    bureau: str
    needs_logo: bool = False
    needs_lockout: bool = False
    dice_method: str = ""  # Asia Poker: only a table using this starting-position method needs it


BGO = "Bureau of Gaming Operations"
BGLO = "Bureau of Gaming Laboratory Operations"

KINDS: tuple[ApprovalKind, ...] = (
    ApprovalKind("sic-bo-device", "Sic Bo electrical device (values entered, winning combinations lit)", "sic-bo",
                 "539.1(b)", BGLO),
    ApprovalKind("sic-bo-shaker", "Sic Bo shaker (manual or automated)", "sic-bo", "539.1(d)", BGO),
    ApprovalKind("hrd-shaker", "High Roll Dice shaker bearing the name or logo", "high-roll-dice", "675a.3(b)(2)",
                 BGO, needs_logo=True),
    ApprovalKind("hrd-extra-roll", "High Roll Dice Extra Roll system with its lock-out", "high-roll-dice",
                 "675a.1(c)", BGO, needs_lockout=True),
    ApprovalKind("ph-shaker", "Props & Hops shaker bearing the name or logo", "props-and-hops", "668a.3(b)", BGO,
                 needs_logo=True),
    ApprovalKind("ap-shaker", "Asia Poker shaker", "asia-poker", "575.2(c)(1)", BGO, dice_method="shaker"),
    ApprovalKind("ap-rng", "Asia Poker random number generator", "asia-poker", "575.2(c)(2)", BGLO,
                 dice_method="rng"),
    ApprovalKind("ap-flat-button", "Asia Poker flat button", "asia-poker", "575.2(c)(3)", BGO,
                 dice_method="flat_button"),
)

_BY_CODE = {k.code: k for k in KINDS}


def kind(code: str) -> ApprovalKind | None:
    return _BY_CODE.get(code)


def kinds_for(game_code: str, dice_method: str | None = None) -> list[ApprovalKind]:
    """The devices a table of the game must have approved (Asia Poker: the one its method uses)."""
    return [k for k in KINDS if k.game == game_code and (not k.dice_method or k.dice_method == dice_method)]
