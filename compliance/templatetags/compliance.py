"""Template helpers: citations as they are printed, signature lines, record links, and the page
fitted to the person reading it (``{% for_this_person %}``, see ``_shown.py``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from compliance import roles
from compliance.citations import cite as resolve
from compliance.people import person_name
from compliance.roles import Capability, has_capability
from compliance.templatetags._shown import fit_to_person

register = template.Library()


@register.simple_tag
def cite(ref: str) -> str:
    """``{% cite "525.21(j)" %}`` → a labelled citation, with the current codification as a title."""
    citation = resolve(ref)
    return format_html(
        '<span class="citation" title="{}">{}</span>', citation.current or citation.label, citation.label
    )


@register.simple_tag
def cites(refs: str | tuple[str, ...] | list[str]) -> str:
    """Several citations joined: ``{% cites view.citation %}`` accepts one reference or a tuple."""
    items = [refs] if isinstance(refs, str) else list(refs)
    return format_html_join(", ", "{}", ((cite(ref),) for ref in items))


@register.simple_tag
def sign_url(record: Any, slot: str) -> str:
    """Where the signature ``slot`` is given on ``record``: the common signing page, or, for a slot bound to an
    action (a mailing's release), that action's form — the signing page refuses it."""
    requirement = type(record).requirement(slot)
    if requirement is not None and requirement.given_by_action:
        return str(requirement.action_url(record))
    content_type = ContentType.objects.get_for_model(record)
    return reverse("sign", args=[content_type.pk, record.pk, slot])


@register.simple_tag
def history_url(record: Any) -> str:
    return f"{reverse('audit-list')}?model={record._meta.label}&object_id={record.pk}"


@register.simple_tag(takes_context=True)
def can(context: dict[str, Any], capability: str) -> bool:
    return has_capability(context["request"].user, Capability(capability))


@register.filter
def breaks_after_slash(value: Any) -> str:
    """A long exact fraction may wrap after its slash ("1160111/" then "10077696"), never inside a number."""
    return str(value).replace("/", "/\u200b")


@register.filter
def money(value: Any) -> str:
    """``{{ amount|money }}``: dollars as every page prints them — "$1,000" when whole, "$12.50" when not, as the
    coupon pages print cents ("$1000.00" beside "$12,500" read as two systems)."""
    from decimal import Decimal, InvalidOperation

    if value is None or value == "":
        return ""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not amount.is_finite():
        return str(value)
    return f"${amount:,.0f}" if amount == amount.to_integral_value() else f"${amount:,.2f}"


@register.filter
def person(value: Any, arg: str = "") -> str:
    """``{{ someone|person }}``: a person as ``compliance.people.person_name`` prints them everywhere;
    ``{{ someone|person:"credential" }}`` with their credential number."""
    return person_name(value, credential=arg == "credential")


@register.filter
def role_label(code: str) -> str:
    return roles.role_label(code)


@register.simple_tag(takes_context=True)
def signature_rows(context: dict[str, Any], record: Any) -> list[tuple[Any, Any, bool]]:
    """``(requirement, signature, may_sign)`` for each slot of ``record``: a Sign action is offered only
    to a person whose signature would be accepted (``compliance.selectors.may_sign``); for a slot bound to an
    action, the link is to the action's form (``sign_url``)."""
    from compliance.selectors import may_sign

    user = context["request"].user
    given = record.signature_list()
    by_slot = {s.slot: s for s in given}
    return [
        (req, by_slot.get(req.slot), req.slot not in by_slot and may_sign(user, record, req, given, on_its_form=True))
        for req in record.signature_requirements
    ]


class ForThisPersonNode(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: template.Context) -> SafeString | str:
        html = self.nodelist.render(context)
        request = context.get("request")
        user = getattr(request, "user", None)
        if request is None or user is None or not user.is_authenticated:
            return html
        return mark_safe(fit_to_person(html, user, request.path))  # noqa: S308  (our own rendered output)


@register.tag("for_this_person")
def for_this_person(parser: template.base.Parser, token: template.base.Token) -> ForThisPersonNode:
    """``{% for_this_person %}…{% end_for_this_person %}``: links and forms the reader cannot use are
    taken out of what is inside (``compliance/templatetags/_shown.py``)."""
    nodelist = parser.parse(("end_for_this_person",))
    parser.delete_first_token()
    return ForThisPersonNode(nodelist)
