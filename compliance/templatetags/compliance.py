"""Template helpers: citations as they are printed, signature lines, record links."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from compliance.citations import cite as resolve
from compliance.roles import Capability, has_capability

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
    content_type = ContentType.objects.get_for_model(record)
    return reverse("sign", args=[content_type.pk, record.pk, slot])


@register.simple_tag
def history_url(record: Any) -> str:
    return f"{reverse('audit-list')}?model={record._meta.label}&object_id={record.pk}"


@register.simple_tag(takes_context=True)
def can(context: dict[str, Any], capability: str) -> bool:
    return has_capability(context["request"].user, Capability(capability))


@register.filter
def role_label(code: str) -> str:
    from compliance.roles import Role

    return str(Role(code).label) if code in Role.values else code
