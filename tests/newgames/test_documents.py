"""The request as the PDF filed with the Executive Director: every item of § 521.4 under its clause, the figures
the engine computes exactly labelled as this system's, or the facility's own for a game the engine does not model
labelled as the facility's with their method, the pictures drawn (a PDF attachment listed by name and SHA-256),
the signature."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
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
    assert "Figures computed by this system (its exact game engine: Sic Bo)" in text
    assert "not computed by this system" not in text


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


def _pdftotext(path: Any) -> list[str]:
    """The text as poppler's pdftotext reads it too (another reader than pypdf), where poppler is installed
    (``make browser-deps`` installs it)."""
    if not shutil.which("pdftotext"):
        return []
    found = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, check=True, text=True)
    return [" ".join(found.stdout.split())]


def test_a_game_the_engine_does_not_model_prints_the_facilitys_figures_labelled_as_such(stated_request, facility,
                                                                                        tmp_path):
    text, _ = _pdf(stated_request, tmp_path, "stated.pdf")
    for source in (text, *_pdftotext(tmp_path / "stated.pdf")):
        assert f"Figures stated by {facility.name} — not computed by this system" in source
        assert "Figures computed by this system" not in source and "How the engine read the rules" not in source
        for figure in ("Straight up", "35 to 1", "1/38", "37 to 1", "1/19", "5.2632%", "Five number", "33 to 5",
                       "3/38", "7.8947%", "10 to 9", "2.6316%"):
            assert figure in source, figure
        assert "Enumeration of the 38 pockets of the wheel." in source
        assert "Simple wager: checked exactly" in source and "Not a simple wager: filed as stated" in source
        assert "Method of computation of each wager (the facility's words)" in source
        assert not re.search(r"\d for \d", source)
    # No figure of any engine game is in it.
    assert "35/216" not in text and "Sic Bo" not in text


def test_the_facilitys_figures_page_renders_as_a_picture(stated_request, tmp_path):
    """The first page drawn at 60 dpi by poppler (pdftoppm), to look at: the heading and the table of wagers."""
    _pdf(stated_request, tmp_path, "stated.pdf")
    if not shutil.which("pdftoppm"):
        pytest.skip("poppler's pdftoppm is not installed (make browser-deps installs it)")
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "2", str(tmp_path / "stated.pdf"),
                    str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert pages and all(p.stat().st_size > 1000 for p in pages)
    from PIL import Image

    with Image.open(pages[0]) as image:
        assert image.size[0] > 400 and image.getextrema() != ((255, 255), (255, 255), (255, 255))


def test_a_signed_request_with_the_facilitys_figures_prints_them_and_the_signature(stated_request, compliance_officer,
                                                                                   password, tmp_path):
    services.request_sign(request=stated_request, user=compliance_officer, password=password)
    stated_request.refresh_from_db()
    text, _ = _pdf(stated_request, tmp_path, "stated-signed.pdf")
    assert "not computed by this system" in text and compliance_officer.profile.full_name in text
    assert "Not signed." not in text and "Altered since signed" not in text


def test_the_filing_prints_clean_with_every_ratio_in_lowest_terms(prepare_stated, ready_request, compliance_officer,
                                                                   tmp_path):
    """Odds and fractions typed unreduced ("70 to 2", "2/76") are filed in lowest terms; the document is in embedded
    Unicode fonts, nothing printed over anything else or off the page, no developer's words."""
    from tests.newgames.conftest import FIVE_NUMBER, STRAIGHT_UP
    from tests.pdf_checks import assert_clean_pdf

    typed = {**STRAIGHT_UP, "payout_odds": "70 to 2", "probability": "2/76", "true_odds": "74 to 2",
             "house_edge": "4/76", "name": "Straight up on one number — Łukasz Żółć's wager 王小明"}
    request = prepare_stated(stated_wagers=[typed, FIVE_NUMBER],
                             title="Keystone Double-Zero Roulette of Nguyễn Văn An and 王小明, evening high-limit pit")
    for filed in (request, ready_request):
        pictures = [(p, selectors.picture_bytes(p)) for p in selectors.pictures_of(filed)]
        pdf = request_pdf(filed, selectors.figures_of(filed), pictures, facility_name="Keystone Downs Casino",
                          printed_for="王小明 (EMP-100000000001)")
        text = " ".join(assert_clean_pdf(pdf, allowed=(typed["name"],)).split())
        if filed is request:
            for lowest in ("35 to 1", "1/38", "37 to 1", "1/19", "5.2632%", "王小明"):
                assert lowest in text, lowest
            for unreduced in ("70 to 2", "2/76", "74 to 2", "4/76"):
                assert unreduced not in text, unreduced
