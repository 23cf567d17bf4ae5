"""Which screens and records implement each clause, found by looking at the code itself.

Records cite through ``RegulatedRecord.citation`` (or a ``citation`` class attribute on any
model); screens through a ``citation`` attribute on their view class (a reference or a tuple of
references). Nothing is listed by hand, so the regulations page cannot drift from the code.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from compliance.citations import CATALOGUE, Clause, cite

__all__ = ["Implementation", "implementations_by_clause"]


@dataclass(frozen=True)
class Implementation:
    kind: str  # "record" or "screen"
    name: str
    ref: str
    url: str = ""


def _refs(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, tuple | list):
        return tuple(str(v) for v in value)
    return ()  # e.g. a model field that happens to be called "citation"


def _walk(patterns: list[URLPattern | URLResolver], prefix: str = "") -> list[tuple[URLPattern, str]]:
    found: list[tuple[URLPattern, str]] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            namespace = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            found.extend(_walk(pattern.url_patterns, namespace))
        else:
            found.append((pattern, prefix))
    return found


def _records() -> list[Implementation]:
    found = []
    for model in apps.get_models():
        for ref in _refs(getattr(model, "citation", "")):
            found.append(Implementation("record", str(model._meta.verbose_name).capitalize(), ref))
    return found


def _screens() -> list[Implementation]:
    found: list[Implementation] = []
    for pattern, prefix in _walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "view_class", None)
        refs = _refs(getattr(view_class, "citation", "") or getattr(pattern.callback, "citation", ""))
        if not refs:
            continue
        title = getattr(view_class, "title", "") or (pattern.name or "").replace("-", " ").capitalize()
        url = ""
        if pattern.name and not pattern.pattern.regex.groups:
            url = reverse(f"{prefix}{pattern.name}")
        found.extend(Implementation("screen", title, ref, url) for ref in refs)
    return found


def implementations_by_clause() -> list[tuple[Clause, list[Implementation]]]:
    by_key: dict[str, list[Implementation]] = defaultdict(list)
    for impl in [*_records(), *_screens()]:
        for clause in cite(impl.ref).clauses:
            if impl not in by_key[clause.key]:
                by_key[clause.key].append(impl)
    return [(clause, sorted(by_key[clause.key], key=lambda i: (i.kind, i.name))) for clause in CATALOGUE]
