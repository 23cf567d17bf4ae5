"""What every coupon screen shares: the page base, the form base, the document page."""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

from django.views.generic import TemplateView

from compliance.bounds import EARLIEST_DAY, LATEST_DAY
from compliance.roles import Capability
from compliance.services import CoSigner
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404
from coupons import selectors
from coupons.models import CouponReceipt

__all__ = ["CouponFormView", "CouponPage", "DocumentDetailView", "parse_day"]

def parse_day(value: str) -> date:
    """A gaming day in an address (``2026-11-03``): a day this system can hold a record for, else 404."""
    try:
        day: date | None = date.fromisoformat(value)
    except ValueError:
        day = None
    return found_or_404(day if day is not None and EARLIEST_DAY <= day <= LATEST_DAY else None,
                        "gaming day of this system")


class CouponPage(CapabilityRequiredMixin):
    """Every coupon screen: a facility, a capability, a title and the clause it implements.

    No default title or clause: each screen declares its own (a default would let a screen show
    another's clause, and the test that every screen declares one could not fail).
    """

    capability = Capability.VIEW_RECORDS
    title: ClassVar[str]
    citation: ClassVar[str | tuple[str, ...]]


class CouponFormView(CouponPage, ServiceFormView):
    """A coupon form: the facility's choices, an introduction and facts beside it; the service's
    refusals are shown in the user's words and save nothing (``ServiceFormView``)."""

    template_name = "coupons/form.html"
    submit_label = "Save"
    intro = ""

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["facility"] = self.facility
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(submit_label=self.submit_label, intro=self.intro, facts=self.facts())
        return context

    def facts(self) -> list[tuple[str, Any]]:
        return []

    def cosigner(self, form: Any, field: str = "receiver") -> CoSigner | None:
        person = form.cleaned_data.get(field)
        if person is None:
            return None
        return CoSigner(person, form.cleaned_data.get(f"{field}_password") or "")


class DocumentDetailView(CouponPage, TemplateView):
    """A coupon document with its ledger lines and signatures."""

    template_name = "coupons/document.html"
    model: type[Any] = CouponReceipt

    def get_object(self) -> Any:
        return found_or_404(selectors.document_in(self.model, self.facility, self.kwargs["pk"]),
                     str(self.model._meta.verbose_name))

    def facts(self, record: Any) -> list[tuple[str, Any]]:
        return []

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        record = self.get_object()
        context.update(record=record, facts=self.facts(record),
                       lines=list(record.ledger_lines().order_by("pk")) if hasattr(record, "ledger_lines") else [],
                       title=str(record))
        return context
