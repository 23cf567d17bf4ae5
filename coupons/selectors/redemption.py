"""Reads for redemption at the table (§ 525.22): the coupon behind a scanned serial, what became of a
coupon already honoured, a table's redemptions, and the scanners of a facility."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

from django.contrib.postgres.fields import BigIntegerRangeField
from django.db import connection
from django.db.models import Count, F, Func, OuterRef, Q, QuerySet, Subquery, Sum, Value

from compliance.keyset import Keyset
from compliance.models import Facility, GamingTable
from coupons.models import (
    CouponRange,
    CouponState,
    DropCount,
    DropCountItem,
    LedgerLine,
    ProgramApproval,
    Redemption,
    RedemptionAnswer,
    ScannerDevice,
    format_cents,
)
from coupons.selectors.scan_reads import answer_sql, coupon_ranges_and_approvals_sql, coupon_ranges_sql, scanner_sql

__all__ = [
    "AwaitingPosting",
    "DayAtTable",
    "RedemptionRow",
    "awaiting_posting_by_denomination",
    "awaiting_posting_counts",
    "banking_tables",
    "coupon_ranges_and_approvals_at",
    "coupon_ranges_at",
    "coupon_ranges_for",
    "drop_count_in",
    "drop_count_items",
    "drop_count_summary",
    "drop_counts_of",
    "recent_redemptions_awaiting_posting",
    "redemption_answer_for",
    "redemption_day_page",
    "redemption_day_tables",
    "redemption_in",
    "redemption_of",
    "redemption_page",
    "redemptions_at_table",
    "redemptions_awaiting_posting",
    "redemptions_of_coupons",
    "scanner_by_token_sha256",
    "scanner_in",
    "scanners_of",
    "scanners_page",
    "table_by_number",
    "table_for_redemption",
]


def coupon_ranges_at(facility: Facility, prefix: str, number: int) -> list[CouponRange]:
    """The open range holding serial ``number`` of each of the facility's series printed with ``prefix``
    (one statement, its games included).

    Per series, the open range starting nearest at or below the serial (index ``coupon_range_open``, one
    step down it), kept if it reaches the serial: the work does not grow with the ranges a day splits.
    The scan's hot path: SQL (:func:`coupons.selectors.scan_reads.coupon_ranges_sql`), on either database."""
    return coupon_ranges_sql(facility.pk, prefix, number)


def coupon_ranges_and_approvals_at(facility: Facility, prefix: str, number: int, on_date: date,
                                   ) -> tuple[list[CouponRange], list[ProgramApproval]]:
    """:func:`coupon_ranges_at` and the facility's approvals on ``on_date``
    (:func:`coupons.selectors.program.facility_approvals`) in one statement: the scan's reads before it writes."""
    return coupon_ranges_and_approvals_sql(facility.pk, prefix, number, on_date)


def redemption_of(series_id: int, number: int) -> Redemption | None:
    return (Redemption.objects.filter(series_id=series_id, serial=number)
            .select_related("table", "series").first())


def redemption_answer_for(account_id: int, key: str) -> RedemptionAnswer | None:
    """The answer stored for an ``Idempotency-Key`` of ``account_id`` (the first success), if any."""
    return answer_sql(account_id, key)


def redemptions_at_table(table: GamingTable, gaming_date: date, *, limit: int = 100) -> list[Redemption]:
    """The table's redemptions of a gaming day, newest first."""
    return list(
        Redemption.objects.filter(table=table, gaming_date=gaming_date)
        .select_related("series", "device", "redeemed_by__profile")
        .order_by("-redeemed_at", "-pk")[:limit]
    )


@dataclass(frozen=True)
class DayAtTable:
    """One table's redemptions of a gaming day: how many, and their face value."""

    table_id: int
    number: str
    count: int
    cents: int

    @property
    def value(self) -> str:
        return format_cents(self.cents)

    @property
    def count_text(self) -> str:
        return f"{self.count:,}"


def redemption_day_tables(facility: Facility, gaming_date: date) -> list[DayAtTable]:
    """Each table's count and value of the day's redemptions, by table number: one grouped read on the index
    (facility, gaming_date), however many thousands the day holds (issue 27: the page shows these, not the rows)."""
    rows = (Redemption.objects.filter(facility=facility, gaming_date=gaming_date)
            .values("table_id", "table__number").annotate(count=Count("pk"), cents=Sum("denomination_cents"))
            .order_by("table__number"))
    return [DayAtTable(r["table_id"], r["table__number"], r["count"], r["cents"] or 0) for r in rows]


def redemption_day_page(facility: Facility, gaming_date: date, keyset: Keyset, limit: int, *,
                        table_id: int | None = None) -> list[Redemption]:
    """Up to ``limit`` of a gaming day's redemptions (one table's, or all) from where ``keyset`` starts, newest
    first: keyset pagination on (redeemed_at, id), no count and no OFFSET (issue 27)."""
    rows = Redemption.objects.filter(facility=facility, gaming_date=gaming_date)
    if table_id is not None:
        rows = rows.filter(table_id=table_id)
    return list(keyset.applied(rows, "redeemed_at")
                .select_related("series", "table", "game", "device", "redeemed_by__profile")[:limit])


def redemption_page(facility: Facility, gaming_date: date, *, table: GamingTable | None = None,
                    before: tuple[datetime, int] | None = None, limit: int = 100) -> list[Redemption]:
    """A gaming day's redemptions (one table's, or the facility's), newest first, ``limit`` + 1 of them: the page and
    whether another follows. ``before``: the (redeemed_at, pk) of the previous page's last row (keyset, no count)."""
    rows = Redemption.objects.filter(facility=facility, gaming_date=gaming_date)
    if table is not None:
        rows = rows.filter(table=table)
    if before is not None:
        at, pk = before
        rows = rows.filter(Q(redeemed_at__lt=at) | Q(redeemed_at=at, pk__lt=pk))
    return list(rows.select_related("series", "table", "game", "device", "redeemed_by__profile")
                .order_by("-redeemed_at", "-pk")[:limit + 1])


def table_for_redemption(facility: Facility, table_id: Any) -> GamingTable | None:
    return (GamingTable.objects.filter(facility=facility, pk=table_id).select_related("game", "facility").first()
            if str(table_id).isdigit() else None)


def scanner_by_token_sha256(digest: str) -> ScannerDevice | None:
    """The scanner holding the token, with its table, game, facilities and account (SQL: the scan's hot path)."""
    return scanner_sql(digest)


def scanners_of(facility: Facility) -> QuerySet[ScannerDevice]:
    return ScannerDevice.objects.filter(facility=facility).select_related("table", "registered_by__profile",
                                                                          "revoked_by__profile")


def scanners_page(facility: Facility, keyset: Keyset, limit: int, *, revoked: bool) -> list[ScannerDevice]:
    """A page of the facility's scanners in service (or revoked), newest registered first, by keyset (issue 27:
    every scanner ever registered stays on the register; a page that listed them all took a second at 1,200)."""
    rows = scanners_of(facility).filter(revoked_at__isnull=not revoked)
    return list(keyset.applied(rows, "registered_at")[:limit])


def coupon_ranges_for(facility: Facility, scans: list[tuple[str, int]]) -> list[CouponRange]:
    """The open ranges holding any of ``scans`` (prefix, number), in one query."""
    if not scans:
        return []
    wanted = Q()
    for prefix, number in set(scans):
        wanted |= Q(series__serial_prefix__iexact=prefix, first_serial__lte=number, last_serial__gte=number)
    return list(
        CouponRange.objects.filter(wanted, facility=facility, closed_by__isnull=True)
        .select_related("series", "series__program", "since", "opened_by")
        .prefetch_related("series__games")
    )


def redemptions_of_coupons(facility: Facility, coupons: list[tuple[int, int]]) -> dict[tuple[int, int], Redemption]:
    """``{(series_id, serial): redemption}`` for those of ``coupons`` already redeemed (one query)."""
    if not coupons:
        return {}
    wanted = Q()
    for series_id, serial in set(coupons):
        wanted |= Q(series_id=series_id, serial=serial)
    found = Redemption.objects.filter(wanted, facility=facility).select_related("table", "series")
    return {(r.series_id, r.serial): r for r in found}


def table_by_number(facility: Facility, number: str) -> GamingTable | None:
    return GamingTable.objects.filter(facility=facility, number__iexact=number).select_related("game").first()


def banking_tables(facility: Facility) -> QuerySet[GamingTable]:
    """Tables where patrons wager against the house: the only ones a coupon is redeemed at, § 525.22(a)."""
    return GamingTable.objects.filter(facility=facility, game__banking=True).select_related("game")


def redemption_in(facility: Facility, pk: Any) -> Redemption | None:
    return (Redemption.objects.filter(facility=facility, pk=pk)
            .select_related("series", "table", "game", "device", "redeemed_by__profile", "drop_count").first())


def scanner_in(facility: Facility, pk: Any) -> ScannerDevice | None:
    return ScannerDevice.objects.filter(facility=facility, pk=pk).first() if str(pk).isdigit() else None


def drop_counts_of(facility: Facility, *, limit: int = 200) -> list[DropCount]:
    return list(DropCount.objects.filter(facility=facility).select_related("table__game")
                .annotate(exceptions=Count("items", filter=Q(items__outcome__in=["exception", "missing"])),
                          cancelled=Count("items", filter=Q(items__outcome="now")))
                .order_by("-gaming_date", "-pk")[:limit])


def drop_count_in(facility: Facility, pk: Any) -> DropCount | None:
    return DropCount.objects.filter(facility=facility, pk=pk).select_related("table__game").first()


def drop_count_items(count: DropCount) -> list[DropCountItem]:
    return list(count.items.select_related("series", "redemption__table").order_by("pk"))


def drop_count_summary(count: DropCount) -> dict[str, int]:
    totals = dict(count.items.values_list("outcome").annotate(n=Count("pk")).order_by())
    return {"at_table": totals.get("at_table", 0), "now": totals.get("now", 0),
            "exceptions": totals.get("exception", 0) + totals.get("missing", 0)}


_POSTED_COLUMNS = ("id", "facility_id", "series_id", "serial", "gaming_date", "denomination_cents", "table_id")


class RedemptionRow(NamedTuple):
    """A redemption's columns the posting reads, as the database gives them (no model instance: finance posts a
    busy day's 55,000 at once, and building the instances took most of the read; issue 27)."""

    id: int
    facility_id: int
    series_id: int
    serial: int
    gaming_date: date
    denomination_cents: int
    table_id: int

    @property
    def pk(self) -> int:
        return self.id


class AwaitingPosting(NamedTuple):
    """A redemption awaiting its posting and the state the ledger holds its coupon in (a named tuple, not a frozen
    dataclass: finance's processing of a busy day makes 55,000, and a frozen dataclass sets each field through
    ``object.__setattr__``)."""

    redemption: RedemptionRow
    held_state: str  # the state of the open range holding its serial; "" if none holds it


def _awaiting(facility: Facility) -> QuerySet[Any]:
    """The facility's redemptions after finance's last processed day, each annotated with the state and last serial
    of the open range at or below its serial (``held_state``, ``held_last``)."""
    from coupons.selectors.closing import closed_days

    held = (CouponRange.objects.filter(series=OuterRef("series_id"), closed_by__isnull=True,
                                       first_serial__lte=OuterRef("serial")).order_by("-first_serial"))
    if connection.vendor == "postgresql":
        # The open range *containing* the serial, one lookup of the GiST index coupon_range_open_no_overlap (open
        # ranges never overlap). Asked as "the highest open range at or below it", PostgreSQL planned each probe on
        # that index by series alone and sorted every open range of the series: at day 80 of a generated year, 154
        # a series, five probes a redemption, 4.6 s a posting read and growing every day (issue 27). A serial no
        # open range contains gives no row, which the readers treat as the range below not holding it.
        span = Func(F("first_serial"), F("last_serial"), Value("[]"), function="int8range",
                    output_field=BigIntegerRangeField())
        held = (CouponRange.objects.annotate(span=span)
                .filter(series=OuterRef("series_id"), closed_by__isnull=True, span__contains=OuterRef("serial"))
                .order_by())
    rows = Redemption.objects.filter(facility=facility)
    through = closed_days(facility).finance_through
    if through is not None:
        rows = rows.filter(gaming_date__gt=through)
    return rows.annotate(held_state=Subquery(held.values("state")[:1]),
                         held_last=Subquery(held.values("last_serial")[:1]))


def redemptions_awaiting_posting(facility: Facility, *, since: datetime | None = None) -> list[AwaitingPosting]:
    """The facility's redemptions whose serial the ledger's ranges do not hold as *redeemed* yet (nor
    *cancelled*), each with the state the ranges hold its serial in.

    A redemption is the coupon's electronic cancellation (§ 525.21(q)(6)); the ledger's move of its serial
    from *distributed* to *redeemed* is posted after it, in batches (``coupons.services.redemption_posting``).
    So a coupon with a redemption is *redeemed* whatever its range says; those whose range still says
    *distributed* await posting, and any other state is a contradiction the posting refuses to hide.
    Finance's processing of a day posts every redemption first and none can be recorded into a processed day
    afterwards, so only the days after the last one processed are read (one query). ``since``: only those
    redeemed at or after that instant (the beat's posting, which checks it found them all:
    ``coupons.services.redemption_posting``)."""
    not_posted = (Q(held_state__isnull=True) | ~Q(held_state__in=[CouponState.REDEEMED, CouponState.CANCELLED])
                  | Q(held_last__lt=F("serial")))
    # Only the columns the readers use, as tuples: a busy day awaits tens of thousands (finance posts them all at
    # once); three model instances a row (with its series and table) took seconds, one a row most of a second.
    # A contradiction reloads its rows whole.
    if connection.vendor == "postgresql":
        found: Any = _awaiting_in_one_probe(facility, since)
    else:
        rows = _awaiting(facility).filter(not_posted)
        if since is not None:
            rows = rows.filter(redeemed_at__gte=since)
        found = (rows.order_by("gaming_date", "series_id", "serial")
                 .values_list(*_POSTED_COLUMNS, "held_state", "held_last"))
    return _as_awaiting(found)


def recent_redemptions_awaiting_posting(facility: Facility, since: datetime) -> tuple[list[AwaitingPosting], int | None]:
    """:func:`redemptions_awaiting_posting` of those redeemed at or after ``since``, and how many await posting in
    all (:func:`awaiting_posting_counts`, summed) as the same snapshot saw them: on PostgreSQL in the same
    statement, on SQLite in the caller's transaction (one snapshot). ``None`` for the total when no row came back
    (the caller counts after: what awaits only grows while it holds the postings' turn)."""
    if connection.vendor != "postgresql":
        return redemptions_awaiting_posting(facility, since=since), sum(awaiting_posting_counts(facility).values())
    rows = _awaiting_in_one_probe(facility, since, with_total=True)
    return _as_awaiting([row[:-1] for row in rows]), (int(rows[0][-1]) if rows else None)


def _as_awaiting(found: Any) -> list[AwaitingPosting]:
    redemption = RedemptionRow._make
    return [AwaitingPosting(redemption(row[:-2]), row[-2] if row[-1] is not None and row[-1] >= row[3] else "")
            for row in found]


def _awaiting_in_one_probe(facility: Facility, since: datetime | None = None, *,
                           with_total: bool = False) -> list[tuple[Any, ...]]:
    """:func:`redemptions_awaiting_posting`'s rows on PostgreSQL: each redemption after finance's last processed day
    joined (LATERAL) to the open range containing its serial, one probe of the GiST index a redemption. The ORM's
    query (:func:`_awaiting`) repeats its two subqueries wherever the filter and the select name them: five probes
    a redemption, 0.9 s of a generated year's busy day of 60,000 (issue 27). The same rows, in the same order."""
    from coupons.selectors.closing import closed_days

    r, u = Redemption._meta, CouponRange._meta

    def col(meta: Any, name: str) -> str:
        return connection.ops.quote_name(meta.get_field(name).column)

    through = closed_days(facility).finance_through
    by_attname = {f.attname: connection.ops.quote_name(f.column) for f in r.concrete_fields}
    total, params = _unposted(facility) if with_total else ("", [])
    total = f", (SELECT COALESCE(SUM(t.n), 0) FROM ({total}) t)" if with_total else ""  # noqa: S608 - names
    sql = (f"SELECT {', '.join(f'r.{by_attname[name]}' for name in _POSTED_COLUMNS)}, "  # noqa: S608 - the models' names
           f"h.{col(u, 'state')}, h.{col(u, 'last_serial')}{total} "
           f"FROM {connection.ops.quote_name(r.db_table)} r "
           f"LEFT JOIN LATERAL (SELECT {col(u, 'state')}, {col(u, 'last_serial')} "
           f"FROM {connection.ops.quote_name(u.db_table)} WHERE {col(u, 'series')} = r.{col(r, 'series')} "
           f"AND {col(u, 'closed_by')} IS NULL AND int8range({col(u, 'first_serial')}, {col(u, 'last_serial')}, '[]') "
           f"@> r.{col(r, 'serial')} LIMIT 1) h ON TRUE "
           f"WHERE r.{col(r, 'facility')} = %s {'AND r.' + col(r, 'gaming_date') + ' > %s' if through else ''} "
           f"{'AND r.' + col(r, 'redeemed_at') + ' >= %s' if since else ''} "
           f"AND (h.{col(u, 'state')} IS NULL OR h.{col(u, 'state')} NOT IN (%s, %s)) "
           f"ORDER BY r.{col(r, 'gaming_date')}, r.{col(r, 'series')}, r.{col(r, 'serial')}")
    params += [facility.pk, *([through] if through else []), *([since] if since else []),
               CouponState.REDEEMED, CouponState.CANCELLED]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def awaiting_posting_counts(facility: Facility, through: date | None = None) -> dict[int, int]:
    """``{denomination_cents: coupons}`` redeemed (on or before ``through``, if given) whose range still says
    *distributed*, the posting not made yet: what the stock's and the day's figures count *redeemed* rather than
    *distributed*.

    Counted, not looked up: each redemption's coupon is moved to *redeemed* by exactly one ``redeem`` line of the
    ledger, dated the redemption's gaming day, of its denomination — the posting's (``redemption_posting``) or, for
    a coupon cancelled at the drop-box count, the count's own in the transaction that records the redemption — and
    a redeemed coupon never moves back (finance's processing cancels it). So, by denomination, the redemptions of
    the days after finance's last processed one less the coupons those days' ``redeem`` lines moved are the ones
    awaiting posting. One statement, one snapshot: a posting committing meanwhile is counted on both sides or on
    neither. The look-up it replaces probed the ranges' GiST index twice a redemption: on the busy floor (issue 27)
    1.7–2.6 s of PostgreSQL for each page that shows the figures once a day held 60,000 redemptions, half a core
    of the database's CPU at 100 scans a second; this reads them in 26 ms. A contradiction (a coupon with a
    redemption held in another state: a record changed outside the application) is the posting's to name
    (:func:`redemptions_awaiting_posting`, which still reads the ranges) and the chain's to find, not this
    figure's."""
    statement, params = _unposted(facility, through)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cents, n FROM ({statement}) c WHERE n > 0 ORDER BY cents", params)  # noqa: S608
        return {int(cents): int(n) for cents, n in cursor.fetchall()}


def _unposted(facility: Facility, through: date | None = None) -> tuple[str, list[Any]]:
    """The SQL (and its parameters) of :func:`awaiting_posting_counts`'s rows ``(cents, n)``, before the
    denominations with none awaiting are left out."""
    from coupons.selectors.closing import closed_days

    quote = connection.ops.quote_name
    after = closed_days(facility).finance_through
    bounds = [(op, day) for op, day in ((">", after), ("<=", through)) if day is not None]

    def per_denomination(model: Any, alias: str, total: str, where: str = "") -> str:
        """``total`` and ``where`` name the model's fields as ``{field}``."""
        col = {f.name: f"{alias}.{quote(f.column)}" for f in model._meta.concrete_fields}
        days = "".join(f" AND {col['gaming_date']} {op} %s" for op, _ in bounds)
        return (f"SELECT {col['denomination_cents']} AS cents, {total.format(**col)} AS n "  # noqa: S608 - names
                f"FROM {quote(model._meta.db_table)} {alias} WHERE {col['facility']} = %s{where.format(**col)}{days} "
                f"GROUP BY 1")

    redeemed = per_denomination(Redemption, "r", "COUNT(*)")
    moved = per_denomination(LedgerLine, "l", "-SUM({quantity})", " AND {kind} = %s")
    days = [day for _, day in bounds]
    return (f"SELECT cents, SUM(n) AS n FROM ({redeemed} UNION ALL {moved}) q GROUP BY cents",  # noqa: S608 - names
            [facility.pk, *days, facility.pk, LedgerLine.Kind.REDEEM, *days])


def awaiting_posting_by_denomination(facility: Facility) -> dict[int, int]:
    """``{denomination_cents: coupons}`` redeemed whose ledger move is not posted yet: readers of the ranges'
    states count them *redeemed*, not *distributed* (:func:`redemptions_awaiting_posting`)."""
    return awaiting_posting_counts(facility)
