"""Django's default storage kept in the database (``StoredFile``): a facility's logo uploaded on one web host is
served by every other and printed by a report on any worker host, with no shared disk to mount and back up apart
from the database. Files are few and small (a logo is at most FILE_UPLOAD_MAX_MEMORY_SIZE); a site that prefers
object storage sets ``FILE_STORAGE`` to another backend (compliance/settings.py)."""

from __future__ import annotations

import hashlib
import mimetypes
from datetime import datetime
from typing import IO, Any

from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage
from django.urls import reverse
from django.utils.deconstruct import deconstructible

__all__ = ["DatabaseStorage", "logo_bytes", "stored_file"]


@deconstructible
class DatabaseStorage(Storage):
    """Files as rows of ``compliance.StoredFile``, served by ``compliance.views_media.media_file``."""

    @staticmethod
    def _model() -> Any:
        from compliance.models import StoredFile

        return StoredFile

    def _open(self, name: str, mode: str = "rb") -> File:
        if "w" in mode or "a" in mode or "+" in mode:
            raise OSError(f"{name}: stored files are written once, through save()")
        row = self._model().objects.filter(name=name).only("data").first()
        if row is None:
            raise FileNotFoundError(f"No stored file named {name}")
        return ContentFile(bytes(row.data), name=name)

    def _save(self, name: str, content: IO[bytes] | File) -> str:
        if hasattr(content, "seek"):
            content.seek(0)
        data = content.read()
        if isinstance(data, str):
            data = data.encode()
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        self._model().objects.create(name=name, data=data, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                                     content_type=kind)
        return name

    def delete(self, name: str) -> None:
        self._model().objects.filter(name=name).delete()

    def exists(self, name: str) -> bool:
        return bool(name) and self._model().objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        row = self._model().objects.filter(name=name).only("size").first()
        if row is None:
            raise FileNotFoundError(f"No stored file named {name}")
        return int(row.size)

    def url(self, name: str | None) -> str:
        return reverse("media", kwargs={"name": name or ""})

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = f"{path.rstrip('/')}/" if path.strip("/") else ""
        names = self._model().objects.filter(name__startswith=prefix).values_list("name", flat=True)
        directories: set[str] = set()
        files: list[str] = []
        for name in names:
            rest = name[len(prefix):]
            head, slash, _ = rest.partition("/")
            (directories.add(head) if slash else files.append(rest))
        return sorted(directories), sorted(files)

    def get_modified_time(self, name: str) -> datetime:
        row = self._model().objects.filter(name=name).only("stored_at").first()
        if row is None:
            raise FileNotFoundError(f"No stored file named {name}")
        return row.stored_at

    get_created_time = get_modified_time


def logo_bytes(facility: Any) -> bytes:
    """The facility's logo as its documents print it, read through the default storage (any host); empty when it
    has none or its file is missing, so a document prints without it rather than failing."""
    logo = getattr(facility, "logo", None)
    if not logo or not logo.name:
        return b""
    try:
        with logo.storage.open(logo.name, "rb") as stored:
            return bytes(stored.read())
    except OSError:
        return b""


def stored_file(name: str) -> Any:
    """The row of a stored file as the media view serves it (bytes, type, SHA-256), or None."""
    from compliance.models import StoredFile

    return StoredFile.objects.filter(name=name).only("data", "content_type", "sha256").first()
