"""Redemption screens: the table screen a dealer scans into (§ 525.22), a redemption's page, the day's
redemptions, the table scanners (register, revoke) and the drop-box counts (§ 525.21(q)(6))."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.readiness import table_readiness, tables_readiness
from compliance.roles import Capability, has_capability
from compliance.views import refusal_messages
from coupons import redemption_forms as forms
from coupons.days import today
from coupons.models import format_cents
from coupons.redemption_rules import allowed_positions
from coupons.selectors import redemption as reads
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from coupons.services.scanners import scanner_register, scanner_revoke
from coupons.views._base import CouponPage, found, parse_day

__all__ = ["RedemptionDayView", "RedemptionDetailView", "ScannerListView", "TableChooserView", "TableScreenView"]


class TableChooserView(CouponPage, TemplateView):
    template_name = "coupons/redeem_tables.html"
    title = "Redeem at a table"
    citation = "525.22"
    capability = Capability.REDEEM_COUPONS

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        tables = list(reads.banking_tables(self.facility).order_by("pit", "number"))
        states = tables_readiness(self.facility, tables)  # the board's and the API's answer, in one pass
        return super().get_context_data(tables=[(t, states[t.pk]) for t in tables], **kwargs)


class TableScreenView(CouponPage, TemplateView):
    """Tablet-sized (800 px): a keyboard-wedge scanner types the serial and Enter; the answer shows large
    and coloured above the table's redemptions of the gaming day."""

    template_name = "coupons/table_screen.html"
    title = "Table screen"
    citation = ("525.22", "525.21(q)(6)")
    capability = Capability.REDEEM_COUPONS

    def table(self) -> Any:
        return found(reads.table_for_redemption(self.facility, self.kwargs["pk"]), "table")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        table = self.table()
        form = kwargs.pop("form", None) or forms.TableScanForm(table=table, positions=allowed_positions(table.game.code))
        context = super().get_context_data(form=form, table=table, **kwargs)
        context["redemptions"] = reads.redemptions_at_table(table, today(self.facility))
        context["readiness"] = table_readiness(table)  # the verdict the redemption itself obeys
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        table = self.table()
        form = forms.TableScanForm(request.POST, table=table, positions=allowed_positions(table.game.code))
        answer = None
        if form.is_valid():
            data = form.cleaned_data
            answer = redemption_answer(
                facility=self.facility, user=request.user,
                scan=Scan(serial=data["serial"], table=table, position=data["position"],
                          chips_cents=data["chips_cents"], wager=data["wager"]),
            )
            # Ready for the next scan: the serial field empty (a keyboard-wedge scanner types into it), the
            # position kept, and the chips kept after a refusal (the same wager, another coupon).
            keep = {"position": data["position"]} | ({} if answer.status == 201 else {"chips": data["chips"]})
            form = forms.TableScanForm(table=table, positions=allowed_positions(table.game.code), initial=keep)
        context = self.get_context_data(form=form, answer=answer, **kwargs)
        return self.render_to_response(context, status=200 if answer is None or answer.status == 201 else 422)


class RedemptionDetailView(CouponPage, TemplateView):
    template_name = "coupons/redemption_detail.html"
    title = "Redemption"
    citation = ("525.22", "525.21(q)(6)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        redemption = found(reads.redemption_in(self.facility, self.kwargs["pk"]), "redemption")
        return super().get_context_data(redemption=redemption, **kwargs)


class RedemptionDayView(CouponPage, TemplateView):
    template_name = "coupons/redemptions.html"
    title = "Redemptions of a gaming day"
    citation = ("525.22", "525.21(m)(3)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        kwargs.pop("day", None)
        asked = self.kwargs.get("day") or self.request.GET.get("day", "")
        day = parse_day(asked) if asked else today(self.facility)
        rows = list(reads.redemptions_of_day(self.facility, day))
        total = sum(r.denomination_cents for r in rows)
        return super().get_context_data(day=day, redemptions=rows, total=format_cents(total), **kwargs)


class ScannerListView(CouponPage, TemplateView):
    """The table scanners: a shift manager registers one (its token shown once) or revokes it."""

    template_name = "coupons/scanners.html"
    title = "Table scanners"
    citation = "525.21(r)(2)"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["scanners"] = reads.scanners_of(self.facility)
        context["may_manage"] = has_capability(self.request.user, Capability.MANAGE_SCANNERS)
        context.setdefault("form", forms.ScannerForm(facility=self.facility))
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            if "revoke" in request.POST:
                device = found(reads.scanner_in(self.facility, request.POST.get("revoke", "")), "scanner")
                scanner_revoke(device=device, reason=request.POST.get("reason", ""), user=request.user)
                messages.success(request, f"{device.name} is revoked: its token is refused from now on.")
                return HttpResponseRedirect(reverse("coupons:scanners"))
            form = forms.ScannerForm(request.POST, facility=self.facility)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(form=form), status=422)
            device, token = scanner_register(facility=self.facility, table=form.cleaned_data["table"],
                                             name=form.cleaned_data["name"], user=request.user)
        except (ValidationError, PermissionDenied) as error:
            for message in refusal_messages(error):
                messages.error(request, message)
            return HttpResponseRedirect(reverse("coupons:scanners"))
        return render(request, "coupons/scanner_token.html", {"view": self, "device": device, "token": token})
