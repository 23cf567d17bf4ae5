"""The request's pages: a compliance officer prepares a request with its figures shown before saving (the engine's,
or the facility's own for a game the engine does not model, checked before saving), adds the pictures (refused in words by content and size), signs; the Board inspector reads every page and posts nothing;
other staff are refused; hostile input answers with a page, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compliance.games.documents import figure_rows
from compliance.games.math.registry import game as engine_game
from compliance.newgames.models import NewGameRequest, RequestPicture
from compliance.newgames.rules import MAX_PICTURE_BYTES
from compliance.roles import Role
from tests.factories import make_person
from tests.newgames.conftest import FIVE_NUMBER, PDF, RED_SURRENDER, STRAIGHT_UP, jpeg, png

pytestmark = pytest.mark.django_db


def _form_data(**changes: Any) -> dict[str, Any]:
    from compliance.models import Game

    return {
        "title": "Sic Bo Lucky Triple", "kind": "new_feature", "classification": "",
        "game": Game.objects.get(code="sic-bo").pk,
        "description": "A wager that the three dice show the same number.", "reason": "Patrons ask for it.",
        "option-three-of-a-kind": "180 to 1", "other_jurisdictions": "none",
        "copyright_status": "none", "trademark_status": "none", "patent_status": "none",
    } | changes


def _pages(request: Any) -> list[str]:
    picture = RequestPicture.objects.filter(request=request).first()
    pages = [reverse("newgames:list"), reverse("newgames:engine"), reverse("newgames:create", args=["sic-bo"]),
             reverse("newgames:create-stated"),
             reverse("newgames:detail", args=[request.pk]), reverse("newgames:pictures", args=[request.pk]),
             reverse("newgames:sign", args=[request.pk]), reverse("newgames:pdf", args=[request.pk])]
    if picture is not None:
        pages.append(reverse("newgames:picture", args=[request.pk, picture.pk]))
    return pages


def test_the_form_shows_the_engines_figures_before_saving_and_saves_the_request(compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("newgames:create", args=["sic-bo"])
    computed = client.post(url, _form_data(title="", **{"compute": "1"}))
    assert computed.status_code == 200 and NewGameRequest.objects.count() == 0
    expected = figure_rows(engine_game("sic-bo").run({"three-of-a-kind": "180 to 1"}))
    assert computed.context["figures"].rows == expected
    html = computed.content.decode()
    assert "180 to 1" in html and "35/216" in html and "This field is required" not in html
    saved = client.post(url, _form_data())
    made = NewGameRequest.objects.get()
    assert saved.status_code == 302 and saved.url == reverse("newgames:detail", args=[made.pk])
    page = client.get(saved.url).content.decode()
    assert "35/216" in page and "Add at least one sketch or picture of the equipment" in page


def test_a_refusal_is_shown_on_the_form_in_words(compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("newgames:create", args=["sic-bo"])
    page = client.post(url, _form_data(**{"option-three-of-a-kind": "181 for 1"})).content.decode()
    assert "never &#x27;for&#x27;" in page or "never 'for'" in page
    page = client.post(url, _form_data(copyright_status="issued")).content.decode()
    assert "Give the details of the copyrights issued" in page
    assert NewGameRequest.objects.count() == 0


def test_a_game_the_engine_does_not_model_is_sent_to_the_facilitys_own_figures(compliance_officer, client_for):
    client = client_for(compliance_officer)
    url = reverse("newgames:create", args=["baccarat-deluxe"])
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200 and "has no model of “baccarat-deluxe”" in html
    assert "file the request with the facility&#x27;s own exact figures instead" in html
    assert reverse("newgames:create-stated") in html
    posted = client.post(url, _form_data())
    assert posted.status_code == 422 and "has no model of “baccarat-deluxe”" in posted.content.decode()
    assert NewGameRequest.objects.count() == 0


def test_the_first_page_offers_a_game_the_engine_models_or_the_facilitys_own_figures(compliance_officer,
                                                                                     client_for):
    choice = client_for(compliance_officer).get(reverse("newgames:engine")).content.decode()
    assert "A game the engine models: its figures computed by this system" in choice
    assert "A game or wager the system does not model: state your own figures" in choice
    assert reverse("newgames:create", args=["sic-bo"]) in choice and reverse("newgames:create-stated") in choice
    assert "cannot be filed" not in choice and "cannot be requested" not in choice


def _upload(client: Any, request: Any, *files: tuple[str, bytes], kind: str = "equipment") -> Any:
    uploads = [SimpleUploadedFile(name, data, content_type="image/png") for name, data in files]
    return client.post(reverse("newgames:pictures", args=[request.pk]), {"kind": kind, "caption": "", "upload": uploads})


def test_pictures_are_refused_by_content_and_size_in_words_naming_the_file(game_request, compliance_officer,
                                                                           client_for):
    client = client_for(compliance_officer)
    page = _upload(client, game_request, ("felt.png", b"GIF89a" + b"\x00" * 40))
    assert page.status_code == 422
    assert "felt.png is not a PNG image, a JPEG image or a PDF document" in page.content.decode()
    big = PDF + b"%" * (MAX_PICTURE_BYTES + 1 - len(PDF))
    page = _upload(client, game_request, ("die.jpg", jpeg()), ("spec.pdf", big))
    assert "spec.pdf is 5,242,881 bytes: a file is at most 5 MB (5,242,880 bytes)" in page.content.decode()
    assert RequestPicture.objects.count() == 0
    exactly = PDF + b"%" * (MAX_PICTURE_BYTES - len(PDF))
    assert _upload(client, game_request, ("spec.pdf", exactly), ("die.jpg", jpeg())).status_code == 302
    assert RequestPicture.objects.filter(request=game_request).count() == 2


def test_a_picture_is_served_as_stored_and_the_request_signed_on_its_page(game_request, compliance_officer,
                                                                          client_for, password):
    client = client_for(compliance_officer)
    _upload(client, game_request, ("layout.png", png()), kind="layout")
    sign_url = reverse("newgames:sign", args=[game_request.pk])
    refused = client.get(sign_url).content.decode()
    assert "It cannot be signed yet" in refused and 'type="password"' not in refused
    assert client.post(sign_url, {"password": password}).status_code == 422
    assert not game_request.is_signed()
    _upload(client, game_request, ("die.jpg", jpeg()))
    picture = RequestPicture.objects.get(request=game_request, name="die.jpg")
    served = client.get(reverse("newgames:picture", args=[game_request.pk, picture.pk]))
    assert served.content == jpeg() and served["Content-Type"] == "image/jpeg"
    assert served["X-Content-SHA256"] == picture.sha256
    assert 'type="password"' in client.get(sign_url).content.decode()
    assert client.post(sign_url, {"password": password}).status_code == 302
    assert game_request.is_signed()
    detail = client.get(reverse("newgames:detail", args=[game_request.pk])).content.decode()
    assert compliance_officer.profile.credential_number in detail and "Sign…" not in detail
    late = _upload(client, game_request, ("late.pdf", PDF))
    assert late.status_code == 422 and "no sketch or picture is added to it any more" in late.content.decode()
    assert not RequestPicture.objects.filter(name="late.pdf").exists()
    pdf = client.get(reverse("newgames:pdf", args=[game_request.pk]))
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF-")


def test_the_inspector_reads_every_page_and_cannot_post(ready_request, inspector, client_for):
    client = client_for(inspector)
    before = (NewGameRequest.objects.count(), RequestPicture.objects.count())
    for url in _pages(ready_request):
        assert client.get(url).status_code == 200, url
        assert client.post(url, _form_data(password="x")).status_code == 403, url
    assert (NewGameRequest.objects.count(), RequestPicture.objects.count()) == before
    assert not ready_request.is_signed()
    menu = client.get("/").content.decode()
    assert reverse("newgames:list") in menu


def test_other_staff_are_refused_and_not_shown_the_menu_entry(ready_request, facility, client_for):
    for role in (Role.SHIFT_MANAGER, Role.FINANCE_SUPERVISOR):
        client = client_for(make_person(role, facility))
        assert client.get(reverse("newgames:detail", args=[ready_request.pk])).status_code == 403
        assert reverse("newgames:list") not in client.get("/").content.decode()


def test_another_facilitys_request_is_not_found(ready_request, other_facility, client_for):
    officer = make_person(Role.COMPLIANCE_OFFICER, other_facility)
    assert client_for(officer).get(reverse("newgames:detail", args=[ready_request.pk])).status_code == 404


HOSTILE = ["", "-1", "99999999999999999999", "١٢٣", "<b><i>unclosed", "</para><font name=x>", "a < b & c > d",
           "=HYPERLINK(\"http://x\",\"y\")", "9999-12-31", "x" * 60_000, "none", "new_game", "issued", "\x00",
           "1 for 1", "1000000000001 to 1"]


FIELDS = ["title", "kind", "classification", "game", "description", "reason", "option-three-of-a-kind",
          "other_jurisdictions", "copyright_status", "copyright_details", "patent_status"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS),
       value=st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30)))
def test_hostile_input_to_the_request_form_gives_a_page_not_a_500(compliance_officer, client_for, field, value):
    client = client_for(compliance_officer)
    response = client.post(reverse("newgames:create", args=["sic-bo"]), _form_data(**{field: value}))
    # 400: a NUL character, refused in words before the view (compliance.request_limits).
    assert response.status_code in ((200, 302, 400, 422) if "\x00" in value else (200, 302, 422)), (field, value,
                                                                                         response.status_code)


_BOUNDARY = "hostile-upload-boundary-7f3a"


def _multipart(fields: dict[str, str], file_field: str, file_name: str, data: bytes) -> bytes:
    """A multipart/form-data body with ``fields`` and one file whose name is ``file_name`` exactly (quotes and line
    breaks escaped as browsers do, so the body stays well formed)."""
    def quoted(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")

    parts = [f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
             for key, value in fields.items()]
    parts.append(f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="{file_field}"; '
                 f'filename="{quoted(file_name)}"\r\nContent-Type: image/png\r\n\r\n'.encode() + data + b"\r\n")
    return b"".join(parts) + f"--{_BOUNDARY}--\r\n".encode()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.sampled_from(["../../x.png", "<script>.png", "=cmd|' /C calc'!A0.pdf", "a" * 400,
                                       "\u202egnp.exe", "", "/", ".", "..", "a/", 'x.png"; name="kind',
                                       "C:\\evil\\x.png"]),
                       st.text(max_size=40)),
       data=st.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"%PDF-", b"GIF89a", b"\x00" * 64]),
       kind=st.sampled_from(["equipment", "layout", "", "<b>", "9999"]))
def test_hostile_uploads_give_a_page_not_a_500(game_request, compliance_officer, client_for, name, data, kind):
    """The file name goes to the server as sent, in a multipart body written here: Django's test client would take
    only its last path part, and its file object refuses a name such as "/" or ".." before anything is sent."""
    client = client_for(compliance_officer)
    response = client.generic("POST", reverse("newgames:pictures", args=[game_request.pk]),
                              _multipart({"kind": kind, "caption": name}, "upload", name, data),
                              content_type=f"multipart/form-data; boundary={_BOUNDARY}")
    # 400: a NUL in the caption or the file name, refused in words before the view (compliance.request_limits); so is
    # a file part whose name Django cannot make a file name of ("", "/", ".."): it reads that part as a field, and
    # then NUL bytes in its content are a field's NUL.
    nul = "\x00" in name + kind or b"\x00" in data
    assert response.status_code in ((200, 302, 400, 422) if nul else (200, 302, 422)), (name, data, kind,
                                                                                          response.status_code)
    if response.status_code == 400:
        assert "NUL character" in response.content.decode()


@pytest.mark.parametrize("engine", ["sic-bo", "x", "asia-poker", "props-and-hops", "a" * 200])
def test_hostile_paths_and_options_give_a_page_not_a_500(engine, compliance_officer, client_for):
    client = client_for(compliance_officer)
    for value in ("", "1000000000001 to 1", "0 to 0", "Z", "<b>"):
        data = _form_data(**{"option-paytable": value, "option-payout": value, "compute": "1"})
        assert client.post(reverse("newgames:create", args=[engine]), data).status_code == 200
        assert client.post(reverse("newgames:create", args=[engine]),
                           {k: v for k, v in data.items() if k != "compute"}).status_code in (200, 302, 422)
    assert client.get("/game-requests/999999999999999999999/").status_code == 404


def test_hostile_input_to_the_signing_form_gives_a_page_not_a_500(game_request, compliance_officer, client_for):
    client = client_for(compliance_officer)
    sign_url = reverse("newgames:sign", args=[game_request.pk])
    for value in HOSTILE:
        response = client.post(sign_url, {"password": value})
        assert response.status_code in ((400, 422) if "\x00" in value else (422,)), (value, response.status_code)
    assert not game_request.is_signed()



# --- a game or wager the engine does not model: the facility's own figures ---------------------------------------


def _stated_data(*wagers: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The form as a browser posts it: every row of wagers shown (three at first), blank ones included."""
    data = {"title": "Keystone Double-Zero Roulette", "kind": "new_game", "classification": "new", "game": "",
            "description": "A wheel of 38 pockets.", "reason": "Patrons ask for it.", "other_jurisdictions": "none",
            "copyright_status": "none", "trademark_status": "none", "patent_status": "none"}
    blank = {"name": "", "payout_odds": "", "probability": "", "true_odds": "", "house_edge": "", "method": ""}
    for n, wager in enumerate([*wagers, *[blank] * (3 - len(wagers))], start=1):
        for key, value in wager.items():
            if key == "simple":
                if not value:
                    data[f"wager-{n}-not_simple"] = "on"
            else:
                data[f"wager-{n}-{key}"] = value
    return data | changes


def test_a_new_game_with_the_facilitys_figures_is_checked_saved_and_printed_as_the_facilitys(
        compliance_officer, client_for, facility, password):
    client = client_for(compliance_officer)
    url = reverse("newgames:create-stated")
    form = client.get(url)
    assert form.status_code == 200 and len(form.context["form"].wager_rows()) == 3
    checked = client.post(url, _stated_data(STRAIGHT_UP, RED_SURRENDER, check="1", title=""))
    html = checked.content.decode()
    assert checked.status_code == 200 and NewGameRequest.objects.count() == 0
    assert f"Figures stated by {facility.name} — not computed by this system" in html
    assert "5.2632%" in html and "2/38" in html and "This field is required" not in html
    more = client.post(url, _stated_data(STRAIGHT_UP, more="1"))
    assert len(more.context["form"].wager_rows()) == 4 and NewGameRequest.objects.count() == 0
    saved = client.post(url, _stated_data(STRAIGHT_UP, FIVE_NUMBER, RED_SURRENDER))
    made = NewGameRequest.objects.get()
    assert saved.status_code == 302 and saved.url == reverse("newgames:detail", args=[made.pk])
    assert made.figures_stated and [w["name"] for w in made.figures["wagers"]] == [
        "Straight up", "Five number", "Red, half back on 0 and 00"]
    _upload(client, made, ("wheel.jpg", jpeg()))
    for page_url in (saved.url, reverse("newgames:sign", args=[made.pk])):
        page = client.get(page_url).content.decode()
        assert f"Figures stated by {facility.name} — not computed by this system" in page
        assert "Enumeration of the 38 pockets of the wheel." in page and "7.8947%" in page
        assert "Figures computed by this system" not in page and "35/216" not in page
    assert client.post(reverse("newgames:sign", args=[made.pk]), {"password": password}).status_code == 302
    assert made.is_signed()
    pdf = client.get(reverse("newgames:pdf", args=[made.pk]))
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF-")
    listed = client.get(reverse("newgames:list")).content.decode()
    assert "Stated by the facility" in listed


def test_inconsistent_or_inexact_figures_are_refused_on_the_page_with_the_exact_value(compliance_officer,
                                                                                      client_for):
    client = client_for(compliance_officer)
    url = reverse("newgames:create-stated")
    page = client.post(url, _stated_data(STRAIGHT_UP | {"house_edge": "1/20"})).content.decode()
    assert ("Wager 1 (Straight up): house advantage stated 1/20; from a probability of 1/38 and payout 35 to 1 it "
            "is 1/19.") in page
    checked = client.post(url, _stated_data(STRAIGHT_UP | {"house_edge": "1/20"}, check="1")).content.decode()
    assert "house advantage stated 1/20" in checked and "These figures cannot be filed yet" in checked
    page = client.post(url, _stated_data(STRAIGHT_UP | {"payout_odds": "36 for 1"})).content.decode()
    assert "never &#x27;for&#x27;" in page and "35 to 1 is the same payout" in page
    page = client.post(url, _stated_data()).content.decode()
    assert "State the figures of at least one wager" in page
    assert NewGameRequest.objects.count() == 0


WAGER_FIELDS = ["wager-1-name", "wager-1-payout_odds", "wager-1-probability", "wager-1-true_odds",
                "wager-1-house_edge", "wager-1-not_simple", "wager-1-method", "wager-2-probability",
                "wager-999-name", "wager-x-name", "kind", "game"]
FRACTIONS = ["0", "0/0", "-1/38", "1/-38", "1/0", "38/1", "1e308", "NaN", "inf", "1/3.5", "½", "1⁄38",
             "9" * 100 + "/7", "1/" + "0" * 50, "99999999999999999999999999999/1", "١/٣٨", "0 to 0", "1 for 1",
             "1000000000001 to 1", "1 to 1; " * 60, "%", "50%"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(WAGER_FIELDS), value=st.one_of(st.sampled_from(HOSTILE + FRACTIONS),
                                                             st.text(max_size=30)),
       action=st.sampled_from(["", "check", "more"]))
def test_hostile_figures_give_a_page_not_a_500(compliance_officer, client_for, field, value, action):
    client = client_for(compliance_officer)
    data = _stated_data(STRAIGHT_UP, **{field: value})
    if action:
        data[action] = "1"
    response = client.post(reverse("newgames:create-stated"), data)
    assert response.status_code in ((200, 302, 400, 422) if "\x00" in value else (200, 302, 422)), (field, value, action)
