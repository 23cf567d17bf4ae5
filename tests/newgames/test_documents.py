"""The request as the PDF filed with the Executive Director: every item of § 521.4 under its clause, the figures
the engine computes exactly, the pictures drawn (a PDF attachment listed by name and SHA-256), the signature."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from pypdf import PdfReader

from compliance.games.documents import figure_rows
from compliance.games.math.core import fraction_text, percent
from compliance.games.math.registry import game as engine_game
from compliance.newgames import selectors, services
from compliance.newgames.documents import request_items, request_pdf
from compliance.newgames.models import RequestPicture

pytestmark = pytest.mark.django_db


def _pdf(request: Any, tmp_path: Any, name: str = "request.pdf") -> tuple[str, PdfReader]:
    pictures = [(p, selectors.picture_bytes(p)) for p in selectors.pictures_of(request)]
    data = request_pdf(request, selectors.figures_of(request), pictures, facility_name="Keystone Downs Casino",
                       printed_for="Test")
    assert data.startswith(b"%PDF-")
    (tmp_path / name).write_bytes(data)  # kept in pytest's temporary directory, to look at
    reader = PdfReader(io.BytesIO(data))
    text = " ".join(page.extract_text() for page in reader.pages)
    return " ".join(text.split()), reader


def test_every_item_of_the_clause_is_under_its_own_heading(ready_request, tmp_path):
    text, _ = _pdf(ready_request, tmp_path)
    for clause in ("521.4(1)", "521.4(1)(i)", "521.4(1)(ii)", "521.4(1)(iii)", "521.4(1)(iv)", "521.4(2)",
                   "521.4(3)", "521.4(4)"):
        assert f"§ {clause} —" in text, clause
    assert "Request for a new wager or feature of an authorized table game: Sic Bo" in text
    assert "the three dice show the same number" in text and "Patrons at other casinos ask for it." in text
    assert "Nevada; New Jersey" in text
    assert "application 97/123456, held by Dragon Side Bets LLC" in text
    assert "Not asked of a new wager or feature" in text
    items = request_items(ready_request, selectors.figures_of(ready_request))
    assert [i.clause for i in items][:3] == ["521.4(1)", "521.4(1)(i)", "521.4(1)(ii)"]


def test_the_figures_in_the_document_are_the_engines_exact_figures(ready_request, tmp_path):
    analysis = engine_game("sic-bo").run({"three-of-a-kind": "180 to 1"})
    text, _ = _pdf(ready_request, tmp_path)
    assert selectors.figures_of(ready_request).rows == figure_rows(analysis)
    for wager in analysis.wagers:
        for figure in (wager.true_odds, fraction_text(wager.house_edge), f"{percent(wager.house_edge)}%"):
            assert figure in text, (wager.name, figure)
        assert all(" to " in tier and " for " not in tier for tier in wager.payout_odds.split("; "))
    assert "180 to 1" in text and "35/216" in text and "16.2037%" in text
    assert not re.search(r"\d for \d", text)


def test_a_game_with_payout_tiers_prints_each_tier(prepare, compliance_officer, tmp_path):
    from tests.newgames.conftest import jpeg

    made = prepare(kind="new_game", classification="variation", game=None, title="Asia Poker Dragon Bonus",
                   engine_game="asia-poker", engine_options={"paytable": "B"}, other_jurisdictions="none")
    services.request_pictures_add(request=made, kind="equipment", files=[("cards.jpg", jpeg())],
                                  user=compliance_officer)
    text, _ = _pdf(made, tmp_path)
    analysis = engine_game("asia-poker").run({"paytable": "B"})
    joined = text.replace(" ", "")  # a long fraction may break after its slash
    for row in figure_rows(analysis):
        for cell in row[3:]:
            assert cell.replace(" ", "") in joined, cell
    assert "The game is a variation of an authorized game." in text
    assert "None: it is not offered in any other gaming jurisdiction." in text
    assert "None: the game has no layout" in text


def test_the_pictures_are_drawn_and_a_pdf_attachment_is_listed_by_name_and_sha256(ready_request, tmp_path):
    text, reader = _pdf(ready_request, tmp_path)
    drawn = sum(len(page.images) for page in reader.pages)
    assert drawn == 2  # the layout sketch and the picture of the die
    attachment = RequestPicture.objects.get(request=ready_request, name="shaker-spec.pdf")
    assert "shaker-spec.pdf: Dice and shaker: a PDF document of 125 bytes" in text
    assert attachment.sha256 in text.replace(" ", "")


def test_the_signature_block_names_the_signer_once_signed(ready_request, compliance_officer, password, tmp_path):
    unsigned, _ = _pdf(ready_request, tmp_path, "unsigned.pdf")
    assert "Not signed." in unsigned and "not signed" in unsigned
    services.request_sign(request=ready_request, user=compliance_officer, password=password)
    ready_request.refresh_from_db()
    signed, _ = _pdf(ready_request, tmp_path)
    profile = compliance_officer.profile
    assert f"Board-issued credential no. {profile.credential_number}" in signed and profile.full_name in signed
    assert "Not signed." not in signed
