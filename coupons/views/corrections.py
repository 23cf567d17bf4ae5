"""Taking back a movement keyed by mistake, § 525.21(j)(6)–(7): reversed while the day is open, corrected
against the signed form (finance approves) once it is closed."""

from __future__ import annotations

from typing import Any

from django.contrib import messages

from compliance.roles import Capability
from compliance.views import found_or_404
from coupons import forms as f
from coupons import selectors, services
from coupons.days import day_words
from coupons.views._base import CouponFormView


class UndoView(CouponFormView):
    form_class = f.UndoForm
    capability = Capability.RECONCILE_MARKETING_DAY
    title = "Reverse or correct an entry"
    citation = ("525.21(j)", "525.21(m)")
    submit_label = "Sign"
    intro = ("The entry stays in the ledger; a reversing entry is added with your reason. Once the day's "
             "reconciliation form is signed, this becomes a correction linked to the form that a finance supervisor "
             "approves before the coupons move.")

    def find_records(self) -> None:
        self.document = found_or_404(selectors.ledger_document(self.facility, self.kwargs["content_type_id"],
                                                               self.kwargs["object_id"]), "document")
        marketing_through = selectors.closed_days(self.facility).marketing_through
        self.form_signed = marketing_through is not None and self.document.gaming_date <= marketing_through

    def facts(self) -> list[tuple[str, Any]]:
        lines = "; ".join(f"{ln.get_kind_display()} {ln.span}" for ln in self.document.ledger_lines())
        return [
            ("Entry", f"{self.document} — {lines}"),
            ("What happens", f"A correction of the form for {day_words(self.document.gaming_date)}, approved by a "
                             f"finance supervisor" if self.form_signed else "A reversing entry on the same gaming day"),
        ]

    def perform(self, form: Any) -> str:
        data = form.cleaned_data
        arguments = {"facility": self.facility, "document": self.document, "reason": data["reason"],
                     "user": self.request.user, "password": data["password"]}
        if self.form_signed:
            correction = services.form_correction_request(**arguments)
            messages.success(self.request, f"{correction} requested: a finance supervisor approves it on the signing "
                                           f"page, then the coupons move.")
            return correction.get_absolute_url()
        reversal = services.movement_reverse(**arguments)
        messages.success(self.request, f"{reversal}: {reversal.quantity:,} coupons taken back.")
        return reversal.get_absolute_url()
