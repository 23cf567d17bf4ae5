"""The default storage is the database (compliance/storage.py): a logo uploaded on one web host is served by every
host and printed by any worker, with nothing on a host's disk."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client
from PIL import Image

from compliance.models import StoredFile
from compliance.storage import DatabaseStorage, logo_bytes


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 20), (31, 95, 139)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def no_disk(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "not-mounted")


def test_the_default_storage_is_the_database(db: Any, no_disk: None) -> None:
    assert isinstance(default_storage, DatabaseStorage)
    name = default_storage.save("facility-logos/keystone.png", ContentFile(_png()))
    assert StoredFile.objects.get(name=name).size == len(_png())
    assert default_storage.exists(name) and default_storage.size(name) == len(_png())
    second = default_storage.save("facility-logos/keystone.png", ContentFile(b"other"))
    assert second != name, "a second file of the same name gets a new name; the first is never overwritten"
    assert default_storage.open(name).read() == _png()
    assert default_storage.listdir("facility-logos") == ([], sorted([name.split("/")[1], second.split("/")[1]]))
    with pytest.raises(OSError, match="written once"):
        default_storage.open(name, "wb")
    default_storage.delete(second)
    assert not default_storage.exists(second)
    with pytest.raises(FileNotFoundError):
        default_storage.open(second)


def test_the_logo_is_served_to_a_signed_in_person_from_any_host(facility: Any, client_for: Any, inspector: Any,
                                                                no_disk: None) -> None:
    facility.logo.save("keystone.png", ContentFile(_png()), save=True)
    url = facility.logo.url
    assert url.startswith("/media/facility-logos/")
    response = client_for(inspector).get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content == _png() and response["Content-Disposition"] == "inline"
    assert response["X-Content-Type-Options"] == "nosniff"
    page = client_for(inspector).get("/").content.decode()
    assert f'src="{url}"' in page, "the header shows the logo"
    assert logo_bytes(facility) == _png()


def test_media_refuses_strangers_writes_and_unknown_names(facility: Any, client_for: Any, inspector: Any) -> None:
    facility.logo.save("keystone.png", ContentFile(_png()), save=True)
    anonymous = Client().get(facility.logo.url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    signed_in = client_for(inspector)
    assert signed_in.get("/media/facility-logos/none.png").status_code == 404
    assert signed_in.get("/media/../../etc/passwd").status_code == 404
    assert signed_in.post(facility.logo.url).status_code in {403, 405}


def test_a_file_that_is_not_a_picture_is_never_shown_as_a_page(facility: Any, client_for: Any, inspector: Any) -> None:
    name = default_storage.save("facility-logos/x.html", ContentFile(b"<script>alert(1)</script>"))
    response = client_for(inspector).get(default_storage.url(name))
    assert response.status_code == 200 and response["Content-Disposition"] == "attachment"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_missing_logo_leaves_documents_without_it(facility: Any) -> None:
    facility.logo.name = "facility-logos/gone.png"
    assert logo_bytes(facility) == b""
    facility.logo.name = ""
    assert logo_bytes(facility) == b""
