"""The redemption endpoints. Thin: read the request, call the service, answer in the one shape."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.utils.dateparse import parse_date
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from coupons.api.cursor import DEFAULT_LIMIT, MAX_LIMIT, CursorError, read_cursor, read_limit, write_cursor
from coupons.api.errors import ErrorSerializer, error_body
from coupons.api.scanning import KEY_PATTERN, scan_reply, scanner_table_problem
from coupons.api.serializers import (
    RedemptionAnswerSerializer,
    RedemptionPageSerializer,
    RedemptionRequestSerializer,
    RedemptionSerializer,
)
from coupons.days import today
from coupons.models import ScannerDevice
from coupons.redemption_rules import REFUSALS
from coupons.selectors.redemption import redemption_in, redemption_page, table_by_number
from coupons.services.answers import redemption_data

__all__ = ["RedemptionDetailView", "RedemptionsView", "unknown_address"]

_ERRORS = {status: OpenApiResponse(ErrorSerializer, description=", ".join(
    sorted(code for code, kind in REFUSALS.items() if kind.status == status)))
    for status in sorted({kind.status for kind in REFUSALS.values()})}
# Every operation may answer 429 (coupons/api/throttling.py), with the seconds to wait, and 400 or 413 before any
# view reads the request (compliance/request_limits.py: a NUL character, a Content-Length too large).
_RETRY_AFTER = OpenApiParameter("Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[429],
                                description="Whole seconds until the limit's window ends: send again then")
_BEFORE_ANY_VIEW = (400, 413, 429)
# The days the API reads, EARLIEST_DAY to LATEST_DAY (compliance/bounds.py): the years 2000 to 2100.
_DAY_PATTERN = r"^(?:20[0-9]{2}|2100)-[0-9]{2}-[0-9]{2}$"
_CODES_TABLE = "\n".join(f"| `{code}` | {kind.status} | {('§ ' + kind.clause) if kind.clause else ''} | {kind.meaning} |"
                         for code, kind in REFUSALS.items())


class RedemptionsView(APIView):
    """Redeem a Match Play Coupon at a table (§ 525.22), or list a table's redemptions of the gaming day."""

    def _where(self, request: Request, table_number: str, *, table_optional: bool = False,
               ) -> tuple[Any, Any, ScannerDevice | None, Response | None]:
        device = request.auth if isinstance(request.auth, ScannerDevice) else None
        if device is not None:
            if (wrong := scanner_table_problem(device, table_number)) is not None:
                return None, None, device, Response(wrong.body, status=wrong.status)
            return device.facility, device.table, device, None
        facility = getattr(request._request, "facility", None)
        if facility is None:
            return None, None, None, Response(error_body("permission_denied", "Your account is not assigned to a "
                                                                              "facility."), status=403)
        table = table_by_number(facility, table_number) if table_number else None
        if table is None and not (table_optional and not table_number):
            what = f"There is no table {table_number} at {facility.name}" if table_number else "Name the table"
            return facility, None, None, Response(error_body("invalid_request", f"{what}.", fields={
                "table": [f"{what}."]}), status=400)
        return facility, table, None, None

    @extend_schema(
        operation_id="redemption_create",
        summary="Redeem a coupon: check it, cancel it electronically, say how to lay out the wager",
        description=(
            "Succeeds only when § 525.22 and § 525.21(q)(5) allow it; the coupon is electronically cancelled in the "
            "same transaction (§ 525.21(q)(6)). A refusal changes nothing and answers with one of these codes, "
            "always in the `Error` shape:\n\n| code | status | clause | meaning |\n|---|---|---|---|\n"
            + _CODES_TABLE
            + "\n\nSend an `Idempotency-Key` with each scan: a retry with the same key returns the first answer "
              "(header `Idempotent-Replayed: true`) instead of a second redemption."
        ),
        request=RedemptionRequestSerializer,
        examples=[OpenApiExample("A $25 coupon on the pass line", request_only=True, value={
            "serial": "MP-0012345", "table": "CR-1", "position": "pass_line", "chips": "25.00", "wager": "R12-S3"})],
        parameters=[
            OpenApiParameter("Idempotency-Key", {"type": "string", "pattern": KEY_PATTERN}, OpenApiParameter.HEADER,
                             description="Up to 80 of A–Z a–z 0–9 . _ : - ; one per scan"),
            _RETRY_AFTER,
            OpenApiParameter("Location", OpenApiTypes.URI, OpenApiParameter.HEADER, response=[201],
                             description="Where the redemption is read again (`redemption_read`)"),
            OpenApiParameter("Idempotent-Replayed", {"type": "string", "enum": ["true"]}, OpenApiParameter.HEADER,
                             response=[201], description="Sent when this is the first answer again: the key was sent before"),
        ],
        responses={201: RedemptionAnswerSerializer, **_ERRORS},
    )
    def post(self, request: Request) -> Response:
        request_data = RedemptionRequestSerializer(data=request.data)
        request_data.is_valid(raise_exception=True)
        data = request_data.validated_data
        facility, table, device, problem = self._where(request, data.get("table", "").strip())
        if problem is not None:
            return problem
        reply = scan_reply(data=data, facility=facility, table=table, device=device, user=request.user,
                           key=request.headers.get("Idempotency-Key", ""), absolute_uri=request.build_absolute_uri)
        return Response(reply.body, status=reply.status, headers=reply.headers)

    @extend_schema(
        operation_id="redemption_list",
        summary="A table's (or every table's) redemptions of a gaming day, newest first, a page at a time",
        parameters=[
            OpenApiParameter("table", OpenApiTypes.STR,
                             description="Table number (a scanner: its own table; a person: every table if omitted)"),
            OpenApiParameter("gaming_date", {"type": "string", "format": "date", "pattern": _DAY_PATTERN},
                             description="Default: the current gaming day"),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                             description=f"Rows a page, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"),
            OpenApiParameter("cursor", OpenApiTypes.STR, description="The next page: take it from `next` (or the "
                                                                     "Link header); opaque"),
            _RETRY_AFTER,
            OpenApiParameter("Link", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[200],
                             description='`<next page>; rel="next"`, when there is one'),
        ],
        responses={200: RedemptionPageSerializer, **{s: _ERRORS[s] for s in (401, 403, 406, *_BEFORE_ANY_VIEW)}},
    )
    def get(self, request: Request) -> Response:
        facility, table, _, problem = self._where(request, request.query_params.get("table", "").strip()[:20],
                                                  table_optional=True)
        if problem is not None:
            return problem
        raw_day = request.query_params.get("gaming_date")  # absent: today; empty: no date, refused
        try:
            day = parse_date(raw_day) if raw_day is not None else today(facility)
        except ValueError:
            day = None
        if day is None or not EARLIEST_DAY <= day <= LATEST_DAY:
            message = f"gaming_date must be a date between {EARLIEST_DAY} and {LATEST_DAY}, as YYYY-MM-DD."
            return Response(error_body("invalid_request", message, fields={"gaming_date": [message]}), status=400)
        try:
            limit = read_limit(request.query_params.get("limit"))
            cursor = request.query_params.get("cursor", "")
            before = read_cursor(cursor) if cursor else None
        except CursorError as error:
            name = "limit" if str(error).startswith("limit") else "cursor"
            return Response(error_body("invalid_request", f"{error}.", fields={name: [f"{error}."]}), status=400)
        rows = redemption_page(facility, day, table=table, before=before, limit=limit)
        page, more = rows[:limit], len(rows) > limit
        next_url = None
        if more:
            query = request.query_params.copy()
            query["cursor"] = write_cursor(page[-1].redeemed_at, page[-1].pk)
            next_url = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
        headers = {"Link": f'<{next_url}>; rel="next"'} if next_url else {}
        return Response({"results": [redemption_data(r) for r in page], "next": next_url}, headers=headers)


class RedemptionDetailView(RedemptionsView):
    """One redemption, as the answer to its scan named it (the ``Location`` of a 201)."""

    http_method_names = ["get", "head", "options"]

    @extend_schema(
        operation_id="redemption_read",
        summary="One redemption: the electronic cancellation of one coupon",
        parameters=[_RETRY_AFTER],
        responses={200: RedemptionSerializer, **{s: _ERRORS[s] for s in (401, 403, 404, 406, *_BEFORE_ANY_VIEW)}},
    )
    def get(self, request: Request, pk: int) -> Response:  # type: ignore[override]
        facility, table, _, problem = self._where(request, "", table_optional=True)
        if problem is not None:
            return problem
        found = redemption_in(facility, pk)
        # A scanner reads the redemptions of its own table only; another table's are not found, not refused.
        if found is None or (table is not None and found.table_id != table.pk):
            return Response(error_body("not_found", f"There is no redemption {pk} here."), status=404)
        return Response(redemption_data(found))


def unknown_address(request: HttpRequest, rest: str) -> JsonResponse:
    """Any other address under the API (``redemptions/abc/``, a typo): 404 in the one error shape, never the
    screens' HTML page a client cannot read."""
    return JsonResponse(error_body("not_found", "The API has no such address: see /api/schema/."), status=404)
