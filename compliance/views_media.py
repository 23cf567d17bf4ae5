"""The default storage's files over HTTP (compliance/storage.py): a facility's logo in the page header. Served by
Django from the database on every web host, so nginx needs no /media/ directory (deploy/nginx-compliance.conf)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from compliance.storage import stored_file
from compliance.views import found_or_404

__all__ = ["media_file"]


@require_safe
def media_file(request: HttpRequest, name: str) -> HttpResponse:
    row = found_or_404(stored_file(name), "stored file")
    response = HttpResponse(bytes(row.data), content_type=row.content_type)
    response["ETag"] = f'"{row.sha256}"'
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    # Only a picture is shown in the page; anything else is a download, never a page of this site (an HTML or SVG
    # file would otherwise run as this site).
    picture = row.content_type.startswith("image/") and "svg" not in row.content_type
    response["Content-Disposition"] = "inline" if picture else "attachment"
    return response
