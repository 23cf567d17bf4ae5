"""The checks of a request to offer a new table game or feature (§ 521.4) that need no database: what an
uploaded file is by its first bytes, how big it may be, the list of other jurisdictions, and whether the
engine's game is the game a new wager or feature belongs to. Nothing here imports Django."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "FILE_KINDS",
    "MAX_PICTURES",
    "MAX_PICTURE_BYTES",
    "MAX_PIXELS",
    "FileKind",
    "JurisdictionsError",
    "clean_file_name",
    "engine_fits",
    "file_kind",
    "jurisdictions_from",
    "jurisdictions_text",
    "size_words",
    "upload_refusal",
]

MAX_PICTURE_BYTES = 5 * 1024 * 1024  # 5 MB a file
MAX_PICTURES = 10  # sketches, pictures and documents of one request, layout and equipment together
MAX_PIXELS = 40_000_000  # an image is drawn into the request's PDF: 40 megapixels is past any camera's picture
MAX_NAME = 200


@dataclass(frozen=True)
class FileKind:
    magic: bytes
    content_type: str
    words: str

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")


FILE_KINDS: tuple[FileKind, ...] = (
    FileKind(b"\x89PNG\r\n\x1a\n", "image/png", "PNG image"),
    FileKind(b"\xff\xd8\xff", "image/jpeg", "JPEG image"),
    FileKind(b"%PDF-", "application/pdf", "PDF document"),
)


def file_kind(head: bytes) -> FileKind | None:
    """What a file is by its first bytes (never by its name or what the browser said)."""
    return next((kind for kind in FILE_KINDS if head.startswith(kind.magic)), None)


def size_words(size: int) -> str:
    return f"{size:,} bytes"


def upload_refusal(name: str, size: int, head: bytes) -> str:
    """Why the file ``name`` of ``size`` bytes beginning with ``head`` is refused ("" when it is not)."""
    if size > MAX_PICTURE_BYTES:
        return (f"{name} is {size_words(size)}: a sketch, picture or document is at most 5 MB "
                f"({size_words(MAX_PICTURE_BYTES)}). Nothing was saved.")
    if size == 0:
        return f"{name} is empty. Nothing was saved."
    if file_kind(head) is None:
        return (f"{name} is not a PNG image, a JPEG image or a PDF document (its content says so, whatever its "
                f"name): only those are accepted. Nothing was saved.")
    return ""


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_file_name(name: str) -> str:
    """The file's own name, without a folder, control characters or more than 200 characters."""
    base = re.split(r"[\\/]", unicodedata.normalize("NFC", name or ""))[-1]
    base = _CONTROL.sub("", base).strip() or "unnamed"
    if len(base) <= MAX_NAME:
        return base
    stem, dot, ext = base.rpartition(".")
    ext = ext[:10] if dot else ""
    return (stem if dot else base)[: MAX_NAME - len(ext) - 1] + ("." + ext if ext else "")


class JurisdictionsError(ValueError):
    """The list of other jurisdictions as typed cannot be read; the message says why."""


NONE_WORD = "none"
MAX_JURISDICTIONS = 200
MAX_JURISDICTION_CHARS = 120


def jurisdictions_from(text: str) -> list[str]:
    """The other gaming jurisdictions where the game or feature is offered now (§ 521.4(3)), one a line
    (commas and semicolons separate too); "none" alone says it is offered nowhere else (an empty list)."""
    names = [" ".join(part.split()) for part in re.split(r"[\n;,]", text or "")]
    names = [name for name in names if name]
    if not names:
        raise JurisdictionsError("List the other gaming jurisdictions where it is offered now, one a line, or "
                                 "write “none” (§ 521.4(3)).")
    if any(name.lower().rstrip(".") == NONE_WORD for name in names):
        if len(names) > 1:
            raise JurisdictionsError("Write “none” alone, or list the jurisdictions where it is offered now "
                                     "(§ 521.4(3)).")
        return []
    if len(names) > MAX_JURISDICTIONS:
        raise JurisdictionsError(f"List at most {MAX_JURISDICTIONS} jurisdictions.")
    long = next((name for name in names if len(name) > MAX_JURISDICTION_CHARS), None)
    if long is not None:
        raise JurisdictionsError(f"A jurisdiction's name is at most {MAX_JURISDICTION_CHARS} characters: "
                                 f"“{long[:40]}…”.")
    return list(dict.fromkeys(names))


def jurisdictions_text(names: list[str]) -> str:
    return "; ".join(names) if names else "None: it is not offered in any other gaming jurisdiction."


def engine_fits(game_chapter: str, engine_chapter: str) -> bool:
    """Whether the engine's game (its chapter, "ch. 539") is the authorized game of that chapter ("539")."""
    return bool(game_chapter) and engine_chapter.strip() == f"ch. {game_chapter.strip()}"
