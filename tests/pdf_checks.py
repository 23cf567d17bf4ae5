"""What every PDF the system prints must be, checked on the bytes: its text in embedded Unicode fonts (never a
standard font such as Helvetica, which cannot draw "Łukasz Żółć"), no two runs of text printed over each other
(a long value running into the next column), nothing past the page's edge, and no developer's words."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

from pypdf import PdfReader
from reportlab.pdfbase import pdfmetrics

__all__ = ["DEVELOPER_WORDS", "Run", "assert_clean_pdf", "developer_words", "fonts_of", "off_the_page", "overprints", "pdf_text",
           "text_runs"]


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def fonts_of(pdf: bytes) -> dict[str, bool]:
    """Each font the pages use (its base name, the subset tag dropped) -> whether its outlines are embedded."""
    found: dict[str, bool] = {}
    for page in PdfReader(io.BytesIO(pdf)).pages:
        resources = page.get("/Resources") or {}
        for font in (resources.get("/Font") or {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            embedded = any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
            found[str(font.get("/BaseFont", "")).lstrip("/").split("+")[-1]] = embedded
    return found


@dataclass(frozen=True)
class Run:
    page: int
    text: str
    x: float
    y: float
    width: float
    size: float
    rotated: bool = False  # drawn at an angle: a watermark, printed across the page on purpose


def _font_name(font: Any) -> str:
    """The registered reportlab font a PDF font dictionary was written from: a TrueType subset is named after its
    face ("AAAAAA+DroidSansFallback"), whatever name it was registered under."""
    base = (str(font.get("/BaseFont", "")).lstrip("/") if font else "").split("+")[-1]
    faces = {}
    for registered in pdfmetrics._fonts.values():
        face = getattr(registered, "face", None)
        name = getattr(face, "name", b"")
        faces[name.decode() if isinstance(name, bytes) else str(name)] = registered.fontName
    return faces.get(base, base)


def _width(text: str, font: Any, size: float) -> float:
    name = _font_name(font)
    try:
        return pdfmetrics.stringWidth(text, name, size)
    except KeyError:
        return pdfmetrics.stringWidth(text, "Helvetica", size)


def _page_runs(number: int, page: Any) -> list[Run]:
    runs: list[Run] = []
    # pypdf reports each run with the text matrix of its line's start: a run after a change of font on the same line
    # (a CJK name in the fallback font) starts where the previous run ended
    previous: dict[str, Any] = {"origin": None, "end": 0.0}

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        origin = (tuple(cm), tuple(tm))
        continued = origin == previous["origin"]
        if not text:
            return
        # the text matrix, then the current transformation: where the run starts and its scale on the page
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = (tm[0] * cm[0] + tm[1] * cm[2]) or 1.0
        effective = size * abs(scale)
        rotated = any(abs(v) > 1e-6 for v in (cm[1], cm[2], tm[1], tm[2]))
        lines = text.split("\n")
        for n, line in enumerate(lines):
            start = previous["end"] if continued and n == 0 else x
            width = _width(line, font, effective)
            if line.strip():
                runs.append(Run(number, line, start, y, width, effective, rotated))
            previous["end"] = start + width
        previous["origin"] = None if len(lines) > 1 else origin

    page.extract_text(visitor_text=visit)
    return runs


def text_runs(pdf: bytes) -> list[Run]:
    """Every run of text drawn, with where it starts on the page and how wide it is (its font's metrics)."""
    return [run for number, page in enumerate(PdfReader(io.BytesIO(pdf)).pages, start=1)
            for run in _page_runs(number, page)]


def overprints(pdf: bytes, *, tolerance: float = 0.6) -> list[tuple[Run, Run]]:
    """Pairs of runs printed over each other: on the same baseline (within a third of the type size) and
    overlapping by more than ``tolerance`` points."""
    found: list[tuple[Run, Run]] = []
    runs = sorted((r for r in text_runs(pdf) if not r.rotated), key=lambda r: (r.page, round(r.y), r.x))
    for i, run in enumerate(runs):
        for other in runs[i + 1:]:
            if other.page != run.page or abs(other.y - run.y) > max(run.size, other.size) / 3:
                if other.page != run.page or other.y - run.y > max(run.size, other.size):
                    break
                continue
            overlap = min(run.x + run.width, other.x + other.width) - max(run.x, other.x)
            if overlap > tolerance:
                found.append((run, other))
    return found


def off_the_page(pdf: bytes) -> list[Run]:
    """Runs that reach past the page's right edge (a value running out of its table)."""
    pages = PdfReader(io.BytesIO(pdf)).pages
    return [r for r in text_runs(pdf)
            if not r.rotated and r.x + r.width > float(pages[r.page - 1].mediabox.width) + 0.5]


# What a filing never says: a repository's doc, a model label, a report kind's code, a set-theory sign, an
# identifier with underscores, the name of a management command.
DEVELOPER_WORDS = {
    "a document of the repository": re.compile(r"docs/|\b\w+\.md\b"),
    "a set-theory sign": re.compile(r"[∪∩∈∉⊂⊆]"),
    "a model label": re.compile(r"\b(compliance|coupons|equipment|exclusion|submissions|newgames|staffing|providers"
                                r"|reports|games)\.[A-Za-z_]+"),
    "an identifier": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "a command": re.compile(r"manage\.py|verify_audit_chain"),
    "a report kind's code": re.compile(r"\b(quarterly-coupons|coupon-reconciliation|audit-extract)\b"),
    "a label said twice": re.compile(r"\b([A-Z][A-Za-z ]{3,}): \1\b"),
}


def developer_words(text: str, *, allowed: tuple[str, ...] = ()) -> list[str]:
    """Each developer's word in ``text``, with what it is (``allowed``: exact strings the document may carry, e.g.
    a person's own typed value)."""
    for word in allowed:
        text = text.replace(word, "")
    return [f"{what}: {match.group(0)!r} in …{text[max(0, match.start() - 40):match.end() + 40]!r}…"
            for what, pattern in DEVELOPER_WORDS.items() for match in pattern.finditer(text)]


def assert_clean_pdf(pdf: bytes, *, allowed: tuple[str, ...] = ()) -> str:
    """The PDF prints in embedded Unicode fonts only, nothing over anything else or off the page, and no
    developer's words. Returns its text."""
    assert pdf.startswith(b"%PDF-")
    fonts = fonts_of(pdf)
    assert fonts, "no fonts"
    not_embedded = sorted(name for name, embedded in fonts.items() if not embedded)
    assert not not_embedded, f"fonts not embedded: {not_embedded}"
    assert b"Helvetica" not in pdf and b"Courier" not in pdf
    clashes = overprints(pdf)
    assert not clashes, "printed over each other: " + "; ".join(f"{a.text!r} and {b.text!r} (page {a.page})"
                                                              for a, b in clashes[:5])
    outside = off_the_page(pdf)
    assert not outside, f"past the page's edge: {[r.text for r in outside[:5]]}"
    text = pdf_text(pdf)
    words = developer_words(text, allowed=allowed)
    assert not words, "developer's words: " + "; ".join(words[:5])
    return text
