"""Redemption screens: the table screen a dealer scans into (§ 525.22), a redemption's page, the day's
redemptions, the table scanners (register, revoke) and the drop-box counts (§ 525.21(q)(6))."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.generic import TemplateView

from compliance.keyset import keyset_of, keyset_page, stale_link_words
from compliance.readiness import facility_readiness_now, table_readiness_now
from compliance.roles import Capability, has_capability
from compliance.views import REFUSED, ServiceFormView, found_or_404
from coupons import redemption_forms as forms
from coupons.days import today
from coupons.models import format_cents
from coupons.redemption_rules import allowed_positions
from coupons.selectors import redemption as reads
from coupons.services.answers import redemption_answer
from coupons.services.redemption import Scan
from coupons.services.scanners import scanner_register, scanner_revoke
from coupons.views._base import CouponPage, parse_day

__all__ = ["RedemptionDayView", "RedemptionDetailView", "ScannerListView", "TableChooserView", "TableScreenView"]


class TableChooserView(CouponPage, TemplateView):
    template_name = "coupons/redeem_tables.html"
    title = "Redeem at a table"
    citation = "525.22"
    capability = Capability.REDEEM_COUPONS
    action_page = True  # the dealer's way to a table's scanner, not a record (compliance.navigation.action_page)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        tables = list(reads.banking_tables(self.facility).order_by("pit", "number"))
        states = facility_readiness_now(self.facility)  # the board's and the API's answer, shared a few seconds
        return super().get_context_data(tables=[(t, states[t.pk]) for t in tables if t.pk in states], **kwargs)


class TableScreenView(CouponPage, ServiceFormView):
    """Tablet-sized (800 px): a keyboard-wedge scanner types the serial and Enter; the answer shows large
    and coloured above the table's redemptions of the gaming day."""

    template_name = "coupons/table_screen.html"
    title = "Table screen"
    citation = ("525.22", "525.21(q)(6)")
    capability = Capability.REDEEM_COUPONS
    form_class = forms.TableScanForm

    def find_records(self) -> None:
        self.table = found_or_404(reads.table_for_redemption(self.facility, self.kwargs["pk"]), "table")

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"table": self.table, "positions": allowed_positions(self.table.game.code)}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(table=self.table, **kwargs)
        context["redemptions"] = reads.redemptions_at_table(self.table, today(self.facility))
        # The verdict the redemption itself obeys: the same service and the same reuse (a write that changes it shows
        # at once, the clock within seconds), not a computation of its own on every view (issue 27: 129 ms a view on
        # a year of data, the floor's verdicts read for one table).
        context["readiness"] = table_readiness_now(self.table)
        return context

    def perform(self, form: Any) -> HttpResponse:
        """The API's answer shown in place (no redirect: the next scan follows at once); a refused one with the
        status of every refusal."""
        data = form.cleaned_data
        answer = redemption_answer(
            facility=self.facility, user=self.request.user,
            scan=Scan(serial=data["serial"], table=self.table, position=data["position"],
                      chips_cents=data["chips_cents"], wager=data["wager"]),
        )
        # Ready for the next scan: the serial field empty (a keyboard-wedge scanner types into it), the
        # position and the chips kept, accepted or refused: a table's wager repeats from coupon to coupon.
        keep = {"position": data["position"], "chips": data["chips"]}
        form = forms.TableScanForm(table=self.table, positions=allowed_positions(self.table.game.code), initial=keep)
        return self.render_to_response(self.get_context_data(form=form, answer=answer),
                                       status=200 if answer.status == 201 else REFUSED)


class RedemptionDetailView(CouponPage, TemplateView):
    template_name = "coupons/redemption_detail.html"
    title = "Redemption"
    citation = ("525.22", "525.21(q)(6)")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        redemption = found_or_404(reads.redemption_in(self.facility, self.kwargs["pk"]), "redemption")
        return super().get_context_data(redemption=redemption, **kwargs)


REDEMPTION_CURSOR = "coupons.redemptions"
SCANNER_CURSOR = "coupons.scanners"


class RedemptionDayView(CouponPage, TemplateView):
    """A gaming day's redemptions (§ 525.22, § 525.21(m)(3)): each table's count and value, then the coupons newest
    first a page at a time by keyset (issue 27: a busy day holds tens of thousands), all tables or one."""

    template_name = "coupons/redemptions.html"
    title = "Redemptions of a gaming day"
    citation = ("525.22", "525.21(m)(3)")
    page_size = 100

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        kwargs.pop("day", None)
        asked = self.kwargs.get("day") or self.request.GET.get("day", "")
        day = parse_day(asked) if asked else today(self.facility)
        tables = reads.redemption_day_tables(self.facility, day)
        chosen = self._chosen_table(tables)
        keyset, stale, query = keyset_of(self.request.GET, purpose=REDEMPTION_CURSOR)
        if stale:
            messages.warning(self.request, stale_link_words("redemptions"))
        page = keyset_page(
            lambda at, limit: reads.redemption_day_page(self.facility, day, at, limit,
                                                        table_id=chosen.table_id if chosen else None),
            keyset, size=self.page_size, key=lambda r: (r.redeemed_at, r.pk), purpose=REDEMPTION_CURSOR)
        shown = [chosen] if chosen else tables
        count = sum(t.count for t in shown)
        return super().get_context_data(
            day=day, tables=tables, chosen=chosen, page=page, query=query, count=count, count_text=f"{count:,}",
            total=format_cents(sum(t.cents for t in shown)), **kwargs)

    def _chosen_table(self, tables: list[reads.DayAtTable]) -> reads.DayAtTable | None:
        """The table the page is narrowed to (``?table=`` its id), if it redeemed coupons that day; a table that
        did not, or no table at all, is said in words and the page shows every table."""
        asked = self.request.GET.get("table", "")
        if not asked:
            return None
        for table in tables:
            if asked == str(table.table_id):
                return table
        messages.warning(self.request, "No coupons were redeemed at that table this gaming day; showing every table.")
        return None


class ScannerListView(CouponPage, ServiceFormView):
    """The table scanners: a shift manager registers one (its token shown once) or revokes it (each scanner's
    Revoke button, posting here: its refusal comes back as a message on this page)."""
    # The register of scanners is a record page; its form is the shift manager's (compliance.navigation.action_page).
    action_page = False

    template_name = "coupons/scanners.html"
    title = "Table scanners"
    citation = "525.21(r)(2)"

    def find_records(self) -> None:
        self.button = "revoke" in self.request.POST

    def get_form_class(self) -> Any:
        return forms.ScannerRevokeForm if self.button else forms.ScannerForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | ({} if self.button else {"facility": self.facility})

    page_size = 50

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        revoked = self.request.GET.get("status") == "revoked"
        keyset, stale, query = keyset_of(self.request.GET, purpose=SCANNER_CURSOR)
        if stale:
            messages.warning(self.request, stale_link_words("scanners"))
        context["page"] = keyset_page(
            lambda at, limit: reads.scanners_page(self.facility, at, limit, revoked=revoked), keyset,
            size=self.page_size, key=lambda s: (s.registered_at, s.pk), purpose=SCANNER_CURSOR)
        context.update(revoked=revoked, query=query)
        context["may_manage"] = has_capability(self.request.user, Capability.MANAGE_SCANNERS)
        return context

    def back_url(self) -> str:
        return reverse("coupons:scanners")

    def perform(self, form: Any) -> str | HttpResponse:
        data = form.cleaned_data
        if self.button:
            device = found_or_404(reads.scanner_in(self.facility, data["revoke"]), "scanner")
            scanner_revoke(device=device, reason=data["reason"], user=self.request.user)
            messages.success(self.request, f"{device.name} is revoked: its token is refused from now on.")
            return self.back_url()
        device, token = scanner_register(facility=self.facility, table=data["table"], name=data["name"],
                                         user=self.request.user)
        return render(self.request, "coupons/scanner_token.html", {"view": self, "device": device, "token": token})
