"""Pages of the request to offer a new table game or feature (§ 521.4): the facility's requests, the choice of the
engine's game, the request form with the exact figures, the pictures, the signature, the request's page and its
PDF. Compliance officers prepare and sign; the Board inspector reads every page and posts nothing (refused
centrally). Thin: read through the selectors, write through the services."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.views import View
from django.views.generic import TemplateView

from compliance.documents import printed_for
from compliance.newgames import forms, selectors, services
from compliance.newgames.documents import picture_rows, request_items, request_pdf
from compliance.newgames.models import CITATION, NewGameRequest, PictureKind
from compliance.newgames.rules import MAX_PICTURE_BYTES, MAX_PICTURES
from compliance.roles import Capability
from compliance.selectors import may_sign
from compliance.stored_files import SUFFIXES, stored_file_response
from compliance.views import CapabilityRequiredMixin, ServiceFormView, found_or_404

__all__ = [
    "EngineChoiceView",
    "PictureUploadView",
    "PictureView",
    "RequestCreateView",
    "RequestDetailView",
    "RequestListView",
    "RequestPdfView",
    "RequestSignView",
    "StatedRequestCreateView",
]


class _Requests(CapabilityRequiredMixin):
    """The requests are the compliance department's until filed (pending patents, plans not yet public): its
    officers prepare and read them; the Board inspector reads them."""

    capability = Capability.PREPARE_GAME_REQUESTS
    citation: tuple[str, ...] = (CITATION,)
    kwargs: dict[str, Any]

    def subject(self) -> NewGameRequest:
        found = found_or_404(selectors.request_in(self.facility, self.kwargs["pk"]), "request in this facility")
        return found


class RequestListView(_Requests, TemplateView):
    template_name = "newgames/list.html"
    title = "New game and feature requests"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"requests": selectors.requests_of(self.facility)}


class EngineChoiceView(_Requests, TemplateView):
    """The first page of a request: a game the engine models (its figures computed), or a game or wager it does
    not model (the facility states its own figures)."""

    template_name = "newgames/engine.html"
    title = "Request a new game or feature: where its figures come from"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"engines": selectors.engine_choices()}


class RequestCreateView(_Requests, ServiceFormView):
    form_class = forms.RequestForm
    template_name = "newgames/form.html"
    title = "Request a new game or feature"

    def setup(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        super().setup(request, *args, **kwargs)
        self.engine = selectors.engine_for(kwargs.get("engine", ""))

    def get_form_kwargs(self) -> dict[str, Any]:
        return super().get_form_kwargs() | {"engine": self.engine}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if "compute" in request.POST:  # the figures for the options typed, nothing saved, nothing refused yet
            form = forms.RequestForm(initial=request.POST.dict(), engine=self.engine)
            return self.render_to_response(self.get_context_data(form=form, typed=request.POST))
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = context["form"]
        typed = kwargs.get("typed") or (form.data if form.is_bound else {})
        options = {spec.name: str(typed.get(forms.OPTION_PREFIX + spec.name) or "").strip() or spec.default
                   for spec in self.engine.options} if self.engine else {}
        slug = self.kwargs.get("engine", "")
        return context | {"engine": self.engine, "figures": selectors.analyse(slug, options),
                          "refusal": "" if self.engine else selectors.NO_ENGINE_MODEL.format(what=f"“{slug}”")}

    def perform(self, form: Any) -> str:
        made = services.request_prepare(facility=self.facility, user=self.request.user, **form.service_kwargs())
        messages.success(self.request, f"Request #{made.pk} prepared. Add the sketches and pictures, then sign it.")
        return made.get_absolute_url()


class StatedRequestCreateView(_Requests, ServiceFormView):
    """A request for a game or wager the engine does not model: the facility states the figures of each wager
    exactly with its method; "Check the figures" reads and checks them without saving, "Add a wager" adds a row."""

    form_class = forms.StatedRequestForm
    template_name = "newgames/stated_form.html"
    title = "Request a new game or feature with the facility's own figures"

    def get_form_kwargs(self) -> dict[str, Any]:
        rows = forms.wager_rows_in(self.request.POST) if self.request.method == "POST" else forms.DEFAULT_WAGER_ROWS
        return super().get_form_kwargs() | {"rows": rows}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if "check" in request.POST or "more" in request.POST:  # nothing saved, nothing refused but the figures
            rows = forms.wager_rows_in(request.POST) + (1 if "more" in request.POST else 0)
            form = forms.StatedRequestForm(initial=request.POST.dict(), rows=rows)
            return self.render_to_response(self.get_context_data(form=form, check="check" in request.POST))
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = context["form"]
        if not kwargs.get("check"):
            return context | {"check": False}
        typed = forms.stated_wagers_typed(self.request.POST, form.rows)
        checked, refusals = selectors.stated_preview(typed, self.facility.name)
        return context | {"check": True, "checked_figures": checked, "refusals": refusals}

    def perform(self, form: Any) -> str:
        made = services.request_prepare(facility=self.facility, user=self.request.user, **form.service_kwargs())
        messages.success(self.request, f"Request #{made.pk} prepared with the facility's own figures. Add the "
                                       f"sketches and pictures, then sign it.")
        return made.get_absolute_url()


class RequestDetailView(_Requests, TemplateView):
    template_name = "newgames/detail.html"
    title = "New game or feature request"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        record = self.subject()
        figures = selectors.figures_of(record)
        pictures = selectors.pictures_of(record)
        return super().get_context_data(**kwargs) | {
            "record": record, "figures": figures, "items": request_items(record, figures),
            "layout": [p for p in pictures if p.kind == PictureKind.LAYOUT],
            "equipment": [p for p in pictures if p.kind == PictureKind.EQUIPMENT],
            "refusals": selectors.filing_refusals(record), "signed": record.is_signed(),
        }


class PictureUploadView(_Requests, ServiceFormView):
    form_class = forms.PictureForm
    template_name = "newgames/pictures.html"
    title = "Add sketches or pictures"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        record = self.subject()
        pictures = selectors.pictures_of(record)
        return super().get_context_data(**kwargs) | {
            "record": record, "pictures": pictures, "rows": picture_rows(pictures), "signed": record.is_signed(),
            "max_pictures": MAX_PICTURES, "max_bytes": MAX_PICTURE_BYTES}

    def perform(self, form: Any) -> str:
        record = self.subject()
        added = services.request_pictures_add(request=record, user=self.request.user, kind=form.cleaned_data["kind"],
                                              caption=form.cleaned_data["caption"], files=form.cleaned_data["upload"])
        messages.success(self.request, f"Added: {', '.join(p.name for p in added)}.")
        return record.get_absolute_url()


class PictureView(_Requests, View):
    """A picture as uploaded (an image shown in the page, a PDF downloaded); refused if its bytes no longer match
    the SHA-256 recorded at upload."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        picture = found_or_404(selectors.picture_in(self.subject(), kwargs["picture"]), "picture of this request")
        return stored_file_response(
            selectors.picture_bytes(picture), name=picture.name, sha256=picture.sha256,
            content_type=picture.content_type, inline=picture.is_image,
            filename=f"picture-{picture.pk}{SUFFIXES.get(picture.content_type, '')}")


class RequestSignView(_Requests, ServiceFormView):
    form_class = forms.SignForm
    template_name = "newgames/sign.html"
    title = "Sign the request"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        record = self.subject()
        requirement = NewGameRequest.requirement("prepared")
        return super().get_context_data(**kwargs) | {
            "record": record, "figures": selectors.figures_of(record), "pictures": selectors.pictures_of(record),
            "refusals": selectors.filing_refusals(record), "signed": record.is_signed(),
            "may_sign": may_sign(self.request.user, record, requirement), "content_hash": record.content_hash()}

    def perform(self, form: Any) -> str:
        record = self.subject()
        signature = services.request_sign(request=record, user=self.request.user,
                                          password=form.cleaned_data["password"])
        messages.success(self.request, f"Signed: {signature.printed}")
        return record.get_absolute_url()


class RequestPdfView(_Requests, View):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        record = self.subject()
        pictures = [(p, selectors.picture_bytes(p)) for p in selectors.pictures_of(record)]
        pdf = request_pdf(record, selectors.figures_of(record), pictures, facility_name=self.facility.name,
                          printed_for=printed_for(request.user))
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="new-game-request-{record.pk}.pdf"'
        return response
