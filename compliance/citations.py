"""The catalogue of clauses this system implements, and how code cites them.

One row per obligation of ``shared/CLAUSES.md`` (58 Pa. Code, Part VII, Subpart K). Models, views
and reports cite clauses with references such as ``"525.21(j)"`` or ``"525.21(g)(5)"``;
:func:`cite` resolves a reference to its catalogue row and refuses one the catalogue does not hold,
so a typo in a citation fails at import time instead of printing a wrong clause on a Board document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

__all__ = ["CATALOGUE", "Citation", "Clause", "cite", "clauses_matching", "recodification"]

CODE = "58 Pa. Code"


@dataclass(frozen=True)
class Clause:
    key: str  # as written in the catalogue, e.g. "525.21(b)(1)–(2)"
    obligation: str
    area: str
    capabilities: tuple[str, ...]
    anchors: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{CODE} § {self.key}"

    @property
    def chapter(self) -> str:
        return self.key.split(".", 1)[0]


@dataclass(frozen=True)
class Citation:
    """A reference as code wrote it, resolved against the catalogue."""

    ref: str
    clauses: tuple[Clause, ...]

    @property
    def label(self) -> str:
        return f"{CODE} § {self.ref}"

    @property
    def current(self) -> str:
        return recodification(self.ref)

    def __str__(self) -> str:
        return self.label


_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]
_SECTION = re.compile(r"^(\d+[a-z]?\.\d+)")
_GROUP = re.compile(r"\(([0-9a-z]+)\)(?:–\(([0-9a-z]+)\))?")


def _expand(first: str, last: str | None) -> list[str]:
    if last is None:
        return [first]
    if first.isdigit() and last.isdigit():
        return [str(n) for n in range(int(first), int(last) + 1)]
    if first in _ROMAN and last in _ROMAN:
        return _ROMAN[_ROMAN.index(first) : _ROMAN.index(last) + 1]
    return [chr(c) for c in range(ord(first), ord(last) + 1)]


def _anchors(key: str) -> tuple[str, ...]:
    anchors: list[str] = []
    section = ""
    for piece in (p.strip() for p in key.split(",")):
        match = _SECTION.match(piece)
        if match:
            section = match.group(1)
            piece = piece[match.end() :]
        prefixes = [section]
        for first, last in _GROUP.findall(piece):
            prefixes = [f"{p}({part})" for p in prefixes for part in _expand(first, last or None)]
        anchors.extend(prefixes)
    return tuple(anchors)


def _c(key: str, obligation: str, area: str, capabilities: tuple[str, ...]) -> Clause:
    return Clause(key, obligation, area, capabilities, _anchors(key))


CATALOGUE: tuple[Clause, ...] = (
    _c(
        "525.21(a)",
        "a coupon has a stated denomination and is used with chips at a banking game",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(b)(1)–(2)",
        "no issue or use before design approval (BGO) and internal controls approval",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(c)(1)–(6)",
        "coupon shows name/logo, value visible on surveillance, sequential serial, restrictions, expiry, chip area",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(d)",
        "marketing distributes; finance keeps the ledger and the (m) procedures",
        "Match Play Coupons (ch. 525)",
        ("foundation", "ledger"),
    ),
    _c(
        "525.21(e)",
        "receipt examined by ≥1 finance and ≥1 marketing member; invoice deviations reported to a finance supervisor and BCC",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(f)(1)–(4)",
        "ledger on receipt: date, quantity and denomination, first/last serial, checkers' names, signatures, credentials",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(g)(1)–(5)",
        "requisition: dates prepared and needed, denomination and quantity, marketing supervisor and authorizing finance supervisor",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(h)(1)–(4)",
        "issuance: serial range, denomination and quantity, issuing finance supervisor, voids with explanation",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(i)",
        "unissued coupons under a finance supervisor or above in an approved locked area named in internal controls",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(j)(1)–(8)",
        "marketing's daily reconciliation form and its eight contents",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(k)",
        "end of day: form copy and undistributed coupons to finance, or kept locked and carried onto next day's form; expired coupons returned daily",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(l)(1)–(5)",
        "return entry: date, serials, denomination and quantity, voids, returning and receiving supervisors",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(m)(1)–(4)",
        "daily: count and examine, review signatures, cancel, reconcile issued = reissued + voided + distributed (+ redeemed), kept by finance",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(n)",
        "monthly inventory of undistributed coupons recorded in the ledger",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(o)",
        "quarterly report to BCC: total value redeemed, by denomination",
        "Match Play Coupons (ch. 525)",
        ("reports",),
    ),
    _c(
        "525.21(p)",
        "internal printing only under approved internal controls",
        "Match Play Coupons (ch. 525)",
        ("ledger",),
    ),
    _c(
        "525.21(q)(1)–(4)",
        "mailed coupons: list of name, address, denomination, expiry, serial to the provider; bar code or strip; kept by finance",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c("525.21(q)(5)", "dealer verifies expiry before redemption", "Match Play Coupons (ch. 525)", ("redemption",)),
    _c(
        "525.21(q)(6)",
        "electronic cancellation on redemption or at the drop-box count",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c(
        "525.21(q)(7)",
        "never mailed to self-excluded (ch. 503a) or excluded (ch. 511a) persons",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c(
        "525.21(r)(1)–(3)",
        "a computerized system: equivalent audit trail and segregation of duties",
        "Match Play Coupons (ch. 525)",
        ("foundation",),
    ),
    _c(
        "525.22(a)",
        "redeemed only at tables where patrons wager against the house",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c(
        "525.22(b)",
        "chips ≥ coupon value; coupon under chips; wager broken down; paid per coupon terms",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c(
        "525.22(c)(1)–(3)",
        "position: betting area; Craps/Mini-Craps Pass or Don't Pass; Roulette outside boxes listed",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c("525.22(d)", "one coupon per wager", "Match Play Coupons (ch. 525)", ("redemption",)),
    _c(
        "525.22(e)",
        "coupon into the drop box whether the wager wins or loses",
        "Match Play Coupons (ch. 525)",
        ("redemption",),
    ),
    _c(
        "577.4(a)",
        "TDF: 4 green + 2 red dice at the table, held by the stickperson in a dice cup",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "577.4(d)",
        "TDF: set changed at least every 24 h; new set on reopening, lost die, tampering or damage",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c("675a.3(a), (d)", "HRD: ten 19 mm dice and a shaker at the table", "Dice, decks and devices", ("equipment",)),
    _c("675a.3(b)(1)", "HRD: dice in the shaker at most 24 h on a table", "Dice, decks and devices", ("equipment",)),
    _c(
        "675a.3(b)(2), (c)",
        "HRD: shaker bears the logo; dealer responsible, never unattended",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c("675a.6(e)–(f)", "HRD variation: six dice, same shaker rules", "Dice, decks and devices", ("equipment",)),
    _c(
        "675a.1(c)",
        'HRD: Extra Roll device with a lock-out after "no more bets"',
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "668a.3(a)–(d)",
        "Props & Hops: two dice in a shaker, at most 24 h, logo, dealer responsible, floorperson loads dice with dealer present",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "539.1(b), (d)",
        "Sic Bo: approved electrical device; manual or automated shaker specifications",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "539.2(a)–(b)",
        "Sic Bo: three dice kept in the shaker; at most 24 h in use",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "539.5(a)(1)–(2)",
        "Sic Bo: floorperson inspects the device (three values) and automated shaker (three operations) before opening",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "539.7(b)–(d)",
        "Sic Bo: device malfunction settled before a floorperson, gaming stops until fixed; shaker failure voids the round",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c("575.2(c)(1)(i)", "Asia Poker: shaker dice at most 24 h on a table", "Dice, decks and devices", ("equipment",)),
    _c(
        "575.3(a)–(b)",
        "Asia Poker: one deck with one joker; or two decks of different backs alternated with a shuffler",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "575.3(c)(1)–(2)",
        "Asia Poker: decks changed every 4 h hand-dealt, 8 h from a shoe",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "575.4(a)–(b)",
        "Asia Poker: dealer inspects, floorperson verifies; second joker torn and kept",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "575.13(l)–(n)",
        "shuffler or shoe malfunction; device covered or signed out of order before other methods",
        "Dice, decks and devices",
        ("equipment",),
    ),
    _c(
        "577.9(a)",
        "TDF: at least two stationary cameras, one covering each end",
        "Staffing and surveillance",
        ("staffing",),
    ),
    _c(
        "577.9(b)",
        "TDF: three dealers per table, one acting as stickperson",
        "Staffing and surveillance",
        ("staffing",),
    ),
    _c(
        "577.9(c)",
        "floorperson: ≤ 2 TDF tables, or 1 TDF + 1 other banking table not Baccarat, Midibaccarat, Craps, Mini-Craps, Pai Gow",
        "Staffing and surveillance",
        ("staffing",),
    ),
    _c(
        "521.4(1)(i)–(iv), (2)–(4)",
        "new game or feature request: description, kind, true odds, payout odds and house advantage per wager, layout and equipment, reason, other jurisdictions, IP",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions", "math"),
    ),
    _c(
        "521.7(a)–(b)",
        "minimum and maximum wagers set and noticed per table",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.7(c)",
        "a wager accepted outside the limits is paid or lost in its entirety",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.7(d)",
        "additional wagering requirements stated in the rules or Rules Submission",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.8(a)",
        "sign at the table for rules that need notice",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.8(b)",
        "no change of a game's rules without an approved amendment",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.8(c)(1)–(2)",
        "limit change: any time with no patrons; otherwise 30 minutes' notice, a sign and an announcement",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.8(d)",
        "sign location, size and language approved by BGO",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "521.9(a)–(f)",
        "full rules at the security podium; gaming guide approved, re-approved when materially changed, displayed, on the website",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "539.6(a)",
        'odds stated with "to", never "for"',
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "539.6(b)–(c)",
        "Sic Bo odds per Rules Submission, no lower than the table",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions", "math"),
    ),
    _c(
        "575.6(b)(3), (6)",
        "Asia Poker: option to rank ace-2-3-4 lowest",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "575.7(e)–(f)",
        "Asia Poker: Bonus Wager and adjacent betting areas as options",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "575.11(c)",
        "Asia Poker: dealer's hand-setting method in the Rules Submission",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "575.12(b)",
        "Asia Poker: bonus paytable A, B or C",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions", "math"),
    ),
    _c(
        "575.12(c)",
        "Asia Poker: payout limit ≥ $50,000 or the most one player could win at the minimum wager",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "575.2(b)(6)–(7), 577.2(b)(3), 675a.1(b)(3)",
        "payout odds (and limit) on the layout or a sign at each table",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "675a.2(e)(4)",
        "HRD: Millionaire Row wager at most $1",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "675a.6(a)",
        "HRD: six-dice variation if selected in the Rules Submission",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "577.8, 675a.5, 675a.6(j)–(k), 539.6",
        "paytables",
        "Rules Submissions, limits, signs, guides, providers",
        ("math",),
    ),
    _c(
        "528.2, 528.3",
        "provider certification application and qualified individuals",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "528.4(a)–(c)",
        "certification valid 4 years; renewal filed ≥ 60 days before expiry keeps it in effect until decided",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "528.6, 528.7",
        "provider list; game used only after lab approval, certification or authorization and the Board's approval",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "528.8(a)–(c)",
        "permission to do business before certification; rescission and the date to cease",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
    _c(
        "528.9",
        "duty to investigate and to report a provider's violations",
        "Rules Submissions, limits, signs, guides, providers",
        ("submissions",),
    ),
)

# Chapters later recodified (public sources; shown beside the clause of the texts above).
_RECODIFIED = {"521": "601a", "525": "603a (§§ 603a.20–603a.21)", "577": "661a", "528": "613a"}


def recodification(ref: str) -> str:
    chapter = ref.split(".", 1)[0]
    now = _RECODIFIED.get(chapter)
    return f"now codified in {CODE} ch. {now}" if now else ""


def _matches(anchor: str, ref: str) -> bool:
    return anchor == ref or anchor.startswith(ref + "(") or ref.startswith(anchor + "(")


def clauses_matching(ref: str) -> tuple[Clause, ...]:
    """Catalogue rows a reference touches; the reference may itself be a range or list ("575.3(c)(1)–(2)")."""
    wanted = _anchors(ref) or (ref,)
    return tuple(c for c in CATALOGUE if any(_matches(a, w) for a in c.anchors for w in wanted))


@cache
def cite(ref: str) -> Citation:
    """Resolve ``ref`` ("525.21(j)", "575.3(c)(1)") or raise ``KeyError`` if the catalogue lacks it."""
    ref = ref.strip().removeprefix("§").strip()
    found = clauses_matching(ref)
    if not found:
        raise KeyError(f"{ref!r} is not in the citation catalogue (compliance/citations.py)")
    return Citation(ref, found)
