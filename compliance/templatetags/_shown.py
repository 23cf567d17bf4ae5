"""A rendered page fitted to the person reading it: the links and forms they cannot use are taken out.

Every page's content passes through :func:`fit_to_person` (``{% for_this_person %}`` in ``base.html``),
so the rule is applied once, for the foundation's screens and every app's alike, and a template
author cannot forget it:

* a link to one of our pages that the person may not open (``compliance.navigation.may_request``,
  which asks the page's own view) is removed when it looks like a button or the reader is the Board inspector,
  or else reduced to its words;
* a form that posts somewhere the person may not post is read-only: its submit buttons go, its
  fields are disabled (a disabled ``fieldset``) with a note saying why; a form that is nothing but
  a button (close the table, take stock out of circulation) is removed altogether.

The Board inspector reads records and documents: on a record's page the forms that act on it are removed
altogether, and no link leads to a page that exists to fill in a form (``compliance.navigation.action_page``). Only
where the inspector opens such a page by its address do they see the form as staff fill it in, disabled, and no
button to submit it.
Forms are never nested in HTML, so each ``<form …>`` runs to the next ``</form>``.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import urlsplit

from django.urls import Resolver404, resolve

from compliance.navigation import action_page, may_request
from compliance.roles import is_inspector

__all__ = ["fit_to_person"]

_ANCHOR = re.compile(r'<a\b(?P<attrs>[^>]*?)\bhref="(?P<href>/[^"]*)"(?P<rest>[^>]*)>(?P<text>.*?)</a>', re.S | re.I)
_FORM = re.compile(r"<form\b(?P<attrs>[^>]*)>(?P<body>.*?)</form>", re.S | re.I)
_ATTR = r"""\b{}\s*=\s*["']?(?P<value>[^"'\s>]*)"""
_METHOD = re.compile(_ATTR.format("method"), re.I)
_ACTION = re.compile(_ATTR.format("action"), re.I)
_CLASS = re.compile(r"""\bclass\s*=\s*["'](?P<value>[^"']*)""", re.I)
# A button submits unless it says otherwise (type="button" or "reset").
_SUBMIT = re.compile(
    r"""<button\b(?![^>]*\btype\s*=\s*["']?(?:button|reset)\b)[^>]*>.*?</button>"""
    r"""|<input\b[^>]*\btype\s*=\s*["']?(?:submit|image)\b[^>]*>""",
    re.S | re.I,
)
_FIELD = re.compile(r"""<(?:select|textarea)\b|<input\b(?![^>]*\btype\s*=\s*["']?hidden\b)""", re.I)

INSPECTOR_NOTE = (
    "Read-only: a Board inspector sees this form as staff fill it in; it cannot be submitted from this account."
)
ROLE_NOTE = "Read-only: your role cannot submit this form."


def _is_form_page(path: str) -> bool:
    try:
        match = resolve(urlsplit(path).path)
    except Resolver404:
        return False
    return action_page(getattr(match.func, "view_class", None))


def fit_to_person(html: str, user: Any, current_path: str) -> str:
    inspector = is_inspector(user)
    # The inspector sees a disabled form only on the page that is that form (opened by its address).
    on_form_page = inspector and _is_form_page(current_path)
    verdicts: dict[tuple[str, str], bool] = {}

    def allowed(url: str, method: str) -> bool:
        key = (url, method)
        if key not in verdicts:
            verdicts[key] = may_request(user, url, method)
        return verdicts[key]

    def link(match: re.Match[str]) -> str:
        if allowed(unescape(match["href"]), "GET"):
            return match[0]
        classes = _CLASS.search(match["attrs"] + match["rest"])
        looks_like_button = classes is not None and {"button", "tile"} & set(classes["value"].split())
        # The inspector is offered no action at all, not even its words ("Change…", "Sign…").
        return "" if looks_like_button or inspector else match["text"]

    def form(match: re.Match[str]) -> str:
        method = _METHOD.search(match["attrs"])
        if method is None or method["value"].lower() != "post":
            return match[0]
        action = _ACTION.search(match["attrs"])
        target = unescape(action["value"]) if action is not None and action["value"] else current_path
        if allowed(target, "POST"):
            return match[0]
        body = _SUBMIT.sub("", match["body"])
        if not _FIELD.search(body):
            return ""
        if inspector and not (on_form_page and urlsplit(target).path == urlsplit(current_path).path):
            return ""
        note = INSPECTOR_NOTE if inspector else ROLE_NOTE
        return (
            f'<form{match["attrs"]}><fieldset class="read-only-form" disabled>'
            f'<p class="read-only-note" role="note">{note}</p>{body}</fieldset></form>'
        )

    return _ANCHOR.sub(link, _FORM.sub(form, html))
