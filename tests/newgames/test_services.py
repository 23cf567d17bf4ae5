"""Preparing, illustrating and signing a request (§ 521.4): each item missing is refused in words and saves
nothing; the figures come from the engine where it models the game, otherwise they are the facility's own, read
and checked exactly and never mixed with an engine game's; pictures are checked by their content and size; the signature
freezes the request, in the model and on PostgreSQL in the database."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, InternalError, ProgrammingError, connection, transaction

from compliance.games.documents import figure_rows
from compliance.games.math.registry import game as engine_game
from compliance.models import Game, SignedRecordError
from compliance.newgames import selectors, services
from compliance.newgames.models import NewGameRequest, RequestPicture, RequestPictureContent
from compliance.newgames.rules import MAX_PICTURE_BYTES
from compliance.roles import Role
from compliance.services import signature_sign
from compliance.testing import behind_the_applications_back
from tests.factories import make_person
from tests.newgames.conftest import PDF, STRAIGHT_UP, jpeg, png, request_fields, stated_fields
from tests.vendors import postgresql_only

pytestmark = pytest.mark.django_db

on_postgresql = postgresql_only("the database's own triggers")


def _refused(prepare, match: str, **changes) -> None:
    before = NewGameRequest.objects.count()
    with pytest.raises(ValidationError, match=match):
        prepare(**changes)
    assert NewGameRequest.objects.count() == before


@pytest.mark.parametrize(("changes", "words"), [
    ({"title": "  "}, "Give the request a title"),
    ({"kind": "whatever"}, "new table game or for a new wager or feature"),
    ({"kind": "new_game", "game": None, "classification": ""}, r"variation of an authorized game.*§ 521.4\(1\)\(i\)"),
    ({"kind": "new_game", "classification": "new"}, "belongs to no authorized game"),
    ({"game": None}, "Choose the authorized table game"),
    ({"classification": "variation"}, "said of a new table game only"),
    ({"description": ""}, r"rules of play and wagering that would be used \(§ 521.4\(1\)\)"),
    ({"reason": " "}, r"why the new table game or feature is being proposed \(§ 521.4\(2\)\)"),
    ({"other_jurisdictions": ""}, r"write “none” \(§ 521.4\(3\)\)"),
    ({"other_jurisdictions": "none\nOhio"}, "Write “none” alone"),
    ({"copyright_status": ""}, r"covered by copyrights: issued, pending or none \(§ 521.4\(4\)\)"),
    ({"patent_status": "issued", "patent_details": ""}, "Give the details of the patents issued"),
    ({"trademark_status": "pending", "trademark_details": " "}, "Give the details of the trademarks pending"),
    ({"description": "x" * 50_001}, "at most 50,000"),
])
def test_each_missing_or_wrong_item_is_refused_in_words_and_saves_nothing(prepare, changes, words):
    _refused(prepare, words, **changes)


def test_without_a_model_in_the_engine_the_engines_figures_are_refused_pointing_to_the_facilitys_own(prepare):
    own = "file the request with the facility's own exact figures instead"
    _refused(prepare, f"has no model of this game, .*{own}", engine_game="")
    _refused(prepare, f"has no model of “blackjack-plus”, .*{own}", engine_game="blackjack-plus")
    # A new wager of Craps: the engine models no game of Craps' chapter.
    _refused(prepare, f"has no model of Craps, .*{own}", game=Game.objects.get(code="craps"))
    # A new wager of Sic Bo is filed with the figures of Sic Bo, not another game's.
    _refused(prepare, "choose the engine's Sic Bo, not Three Dice Football", engine_game="three-dice-football",
             engine_options={})


def test_an_option_the_engine_refuses_is_said_in_its_words(prepare):
    _refused(prepare, "odds are stated with 'to', never 'for'", engine_options={"three-of-a-kind": "181 for 1"})
    _refused(prepare, "has no option colour", engine_options={"colour": "red"})


def test_the_figures_kept_are_the_engines_exact_figures_for_the_options(game_request):
    analysis = engine_game("sic-bo").run({"three-of-a-kind": "180 to 1"})
    assert game_request.figures == analysis.as_json()
    assert game_request.engine_options == dict(analysis.options)  # defaults included
    figures = selectors.figures_of(game_request)
    assert figures.rows == figure_rows(analysis) and not figures.changed and not figures.refusal
    triple = next(row for row in figures.rows if "180 to 1" in row[3])
    assert triple[5] == "215 to 1" and triple[6] == "35/216"  # 1 in 216 paid 180 to 1: (215 - 180)/216


def test_a_new_game_needs_its_classification_and_no_authorized_game(prepare):
    made = prepare(kind="new_game", classification="composite", game=None, engine_game="three-dice-football",
                   engine_options={}, other_jurisdictions="none")
    assert made.is_game and made.other_jurisdictions == [] and made.game is None


def test_only_a_compliance_officer_prepares_a_request(facility, shift_manager):
    with pytest.raises(PermissionDenied):
        services.request_prepare(facility=facility, user=shift_manager, **request_fields())


# --- pictures --------------------------------------------------------------------------------------------------


def _add(request, officer, *files, kind="equipment"):
    return services.request_pictures_add(request=request, kind=kind, files=list(files), user=officer)


def test_pictures_are_kept_in_the_database_with_their_name_type_size_and_sha256(game_request, compliance_officer):
    data = png()
    (picture,) = _add(game_request, compliance_officer, ("C:\\sketches\\layout.png", data), kind="layout")
    assert (picture.name, picture.content_type, picture.size) == ("layout.png", "image/png", len(data))
    assert picture.sha256 == hashlib.sha256(data).hexdigest()
    assert selectors.picture_bytes(picture) == data


def test_a_file_is_refused_by_its_content_even_when_named_png_and_nothing_is_saved(game_request, compliance_officer):
    gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
    with pytest.raises(ValidationError) as refused:
        _add(game_request, compliance_officer, ("die.jpg", jpeg()), ("layout.png", gif))
    assert any("layout.png is not a PNG image, a JPEG image or a PDF document" in m for m in refused.value.messages)
    assert RequestPicture.objects.count() == 0 and RequestPictureContent.objects.count() == 0


def test_a_png_that_cannot_be_read_as_an_image_is_refused(game_request, compliance_officer):
    with pytest.raises(ValidationError, match="begins like an image but cannot be read"):
        _add(game_request, compliance_officer, ("broken.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100))


def test_exactly_5_mb_is_accepted_and_one_byte_more_refused(game_request, compliance_officer):
    exactly = PDF + b"%" * (MAX_PICTURE_BYTES - len(PDF))
    with pytest.raises(ValidationError, match=r"big.pdf is 5,242,881 bytes.*at most 5 MB \(5,242,880 bytes\)"):
        _add(game_request, compliance_officer, ("big.pdf", exactly + b"%"))
    assert RequestPicture.objects.count() == 0
    (picture,) = _add(game_request, compliance_officer, ("spec.pdf", exactly))
    assert picture.size == MAX_PICTURE_BYTES == len(selectors.picture_bytes(picture))


def test_at_most_ten_pictures_a_request(game_request, compliance_officer):
    _add(game_request, compliance_officer, *[(f"p{n}.pdf", PDF) for n in range(8)])
    with pytest.raises(ValidationError, match=r"at most 10 .* holds 8 and 3 were chosen"):
        _add(game_request, compliance_officer, *[(f"q{n}.pdf", PDF) for n in range(3)])
    _add(game_request, compliance_officer, ("q1.pdf", PDF), ("q2.pdf", PDF))
    assert RequestPicture.objects.filter(request=game_request).count() == 10


def test_a_picture_is_never_changed_or_removed(ready_request):
    picture = RequestPicture.objects.filter(request=ready_request).first()
    picture.caption = "changed"
    with pytest.raises(SignedRecordError):
        picture.save()
    with pytest.raises(SignedRecordError):
        picture.delete()


# --- signing ---------------------------------------------------------------------------------------------------


def test_signing_needs_a_picture_of_the_equipment(game_request, compliance_officer, password):
    _add(game_request, compliance_officer, ("layout.png", png()), kind="layout")
    with pytest.raises(ValidationError, match=r"picture of the equipment .*§ 521.4\(1\)\(iv\)"):
        services.request_sign(request=game_request, user=compliance_officer, password=password)
    assert not game_request.is_signed()
    # The common signing page is held to the same: the refusal rolls the signature back.
    with pytest.raises(ValidationError, match="picture of the equipment"):
        signature_sign(record=game_request, slot="prepared", user=compliance_officer, password=password)
    assert not game_request.is_signed()


def test_the_request_waits_for_a_signature_only_once_it_can_be_signed(game_request, compliance_officer, client_for):
    awaiting = client_for(compliance_officer).get("/").context["awaiting"]
    assert game_request not in [r for r, _ in awaiting]
    _add(game_request, compliance_officer, ("die.jpg", jpeg()))
    awaiting = client_for(compliance_officer).get("/").context["awaiting"]
    assert game_request in [r for r, _ in awaiting]


def test_signing_covers_the_pictures_and_freezes_the_request(ready_request, compliance_officer, password):
    signature = services.request_sign(request=ready_request, user=compliance_officer, password=password)
    assert signature.content_hash == ready_request.content_hash()
    assert len(ready_request.signable_content()["pictures"]) == 3
    ready_request.title = "Changed after signing"
    with pytest.raises(SignedRecordError):
        ready_request.save()
    with pytest.raises(ValidationError, match="is signed: no picture is added"):
        _add(ready_request, compliance_officer, ("late.pdf", PDF))
    with pytest.raises(SignedRecordError, match="no picture is added to it once signed"):
        RequestPicture.objects.create(request=ready_request, kind="layout", name="late.pdf",
                                      content_type="application/pdf", size=len(PDF), sha256="0" * 64)
    ready_request.refresh_from_db()
    assert ready_request.title == "Sic Bo Lucky Triple" and not ready_request.altered_since_signed


def test_a_wrong_password_signs_nothing(ready_request, compliance_officer):
    with pytest.raises(ValidationError, match="password is not correct"):
        services.request_sign(request=ready_request, user=compliance_officer, password="wrong")
    assert not ready_request.is_signed()


def test_only_a_compliance_officer_signs(ready_request, facility, password):
    other = make_person(Role.SHIFT_MANAGER, facility)
    with pytest.raises(PermissionDenied):
        services.request_sign(request=ready_request, user=other, password=password)


def test_figures_changed_in_the_engine_since_preparation_stop_the_signature(ready_request, compliance_officer,
                                                                            password):
    figures = dict(ready_request.figures) | {"title": "Sic Bo as the engine once read it"}
    behind_the_applications_back("UPDATE newgames_newgamerequest SET figures = %s WHERE id = %s",
                                 [json.dumps(figures), ready_request.pk])
    ready_request.refresh_from_db()
    assert selectors.figures_of(ready_request).changed
    with pytest.raises(ValidationError, match="no longer those computed when the request was prepared"):
        services.request_sign(request=ready_request, user=compliance_officer, password=password)


@on_postgresql
def test_on_postgresql_the_database_refuses_a_change_to_a_signed_request(ready_request, compliance_officer,
                                                                         password):
    services.request_sign(request=ready_request, user=compliance_officer, password=password)
    with pytest.raises((IntegrityError, InternalError), match="is signed"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute("UPDATE newgames_newgamerequest SET title = 'Rewritten' WHERE id = %s", [ready_request.pk])
    picture = RequestPicture.objects.filter(request=ready_request).first()
    with pytest.raises((IntegrityError, InternalError), match="is signed: nothing is added"), \
            transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO newgames_requestpicture (request_id, kind, caption, name, content_type, size, sha256, "
            "created_at) VALUES (%s, 'layout', '', 'late.png', 'image/png', 10, %s, now())",
            [ready_request.pk, "0" * 64])
    # The pictures' bytes: the application's role may only add to the table, and the table refuses a change.
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute("UPDATE newgames_requestpicturecontent SET data = %s WHERE picture_id = %s",
                       [b"x", picture.pk])
    with pytest.raises((IntegrityError, InternalError), match="append-only"):
        behind_the_applications_back("UPDATE newgames_requestpicturecontent SET data = %s WHERE picture_id = %s",
                                     [b"x", picture.pk], triggers_off=False)


@on_postgresql
def test_bytes_altered_behind_the_applications_back_are_found(ready_request):
    picture = RequestPicture.objects.filter(request=ready_request, content_type="image/png").first()
    behind_the_applications_back("UPDATE newgames_requestpicturecontent SET data = %s WHERE picture_id = %s",
                                 [png(colour="red"), picture.pk])
    assert selectors.picture_bytes(picture) is None
    assert any("no longer match the SHA-256" in r for r in selectors.filing_refusals(ready_request))


# --- a game or wager the engine does not model: the facility's own figures ---------------------------------------


def test_a_game_the_engine_does_not_model_is_filed_with_the_facilitys_own_figures(stated_request, facility):
    assert stated_request.figures_stated and stated_request.engine_game == "" and stated_request.engine_options == {}
    assert stated_request.figures["stated_by"] == facility.name
    assert [w["name"] for w in stated_request.figures["wagers"]] == ["Straight up", "Five number",
                                                                    "Red, half back on 0 and 00"]
    assert stated_request.figures["wagers"][0] == STRAIGHT_UP  # as stated: 2/38, not reduced
    figures = selectors.figures_of(stated_request)
    # No engine game's figures attach to it: no engine, no analysis, no engine rows.
    assert figures.engine is None and figures.analysis is None and figures.rows == [] and not figures.refusal
    assert figures.stated is not None and figures.stated.stated_by == facility.name
    # the filing's rows: in lowest terms (kept as stated above)
    assert figures.stated.rows[0] == ["Straight up", "35 to 1", "1/38", "37 to 1", "1/19", "5.2632%",
                                      "Simple wager: checked exactly"]
    assert figures.stated.rows[2][-1].startswith("Not a simple wager")
    assert "game" not in stated_request.figures and "analysis" not in stated_request.figures
    assert selectors.filing_refusals(stated_request) == []


def test_a_new_wager_of_a_game_the_engine_does_not_model_is_filed_with_the_facilitys_figures(prepare_stated):
    """A new wager of Craps (whose chapter the engine does not model): its figures are the facility's."""
    craps = Game.objects.get(code="craps")
    made = prepare_stated(kind="new_feature", classification="", game=craps, title="Craps Fire Bet", stated_wagers=[
        {"name": "Any seven (single roll)", "payout_odds": "4 to 1", "probability": "1/6", "true_odds": "5 to 1",
         "house_edge": "1/6", "method": "Enumeration of the 36 rolls of two dice: 6 make seven."}])
    assert made.game == craps and made.figures_stated
    assert selectors.figures_of(made).stated.wagers[0].house_edge_percent == "16.6667%"


def test_inconsistent_figures_are_refused_with_the_exact_value_and_nothing_is_saved(prepare_stated):
    wrong = STRAIGHT_UP | {"house_edge": "1/20"}
    with pytest.raises(ValidationError) as refused:
        prepare_stated(stated_wagers=[wrong])
    assert refused.value.messages == ["Wager 1 (Straight up): house advantage stated 1/20; from a probability of "
                                      "1/38 and payout 35 to 1 it is 1/19."]
    assert NewGameRequest.objects.count() == 0


@pytest.mark.parametrize(("changes", "words"), [
    ({"payout_odds": "35 for 1"}, "odds are stated with 'to', never 'for'"),
    ({"probability": "0/38"}, "has a zero"),
    ({"probability": "-1/38"}, "is negative"),
    ({"probability": "1/" + "9" * 40}, "at most 30 digits"),
    ({"probability": "2.63%"}, "not a percentage"),
    ({"house_edge": "garbage"}, "write it as a fraction p/q"),
    ({"method": ""}, "say how the figures were computed"),
])
def test_stated_figures_that_are_not_exact_are_refused_in_words(prepare_stated, changes, words):
    with pytest.raises(ValidationError) as refused:
        prepare_stated(stated_wagers=[STRAIGHT_UP | changes])
    assert any(words in m for m in refused.value.messages), refused.value.messages
    assert NewGameRequest.objects.count() == 0


def test_a_request_carries_the_engines_figures_or_the_facilitys_never_both(prepare_stated):
    with pytest.raises(ValidationError, match="never both"):
        prepare_stated(engine_game="sic-bo")
    with pytest.raises(ValidationError, match="never both"):
        prepare_stated(engine_options={"three-of-a-kind": "180 to 1"})
    with pytest.raises(ValidationError, match="at least one wager"):
        prepare_stated(stated_wagers=[])
    assert NewGameRequest.objects.count() == 0


def test_the_database_keeps_the_engines_figures_and_the_facilitys_apart(game_request, stated_request):
    """A request with the facility's figures names no engine game or options, and a request of an engine game
    carries no stated figures (constraint new_game_request_figures_source)."""
    fields = {f.name: getattr(stated_request, f.name) for f in NewGameRequest._meta.concrete_fields
              if f.name not in ("id", "created_at")}
    for changes in ({"engine_game": "sic-bo"}, {"engine_options": {"paytable": "A"}},
                    {"figures": game_request.figures}):
        with pytest.raises(IntegrityError), transaction.atomic():
            NewGameRequest.objects.create(**(fields | changes))
    engine_fields = {f.name: getattr(game_request, f.name) for f in NewGameRequest._meta.concrete_fields
                     if f.name not in ("id", "created_at")}
    with pytest.raises(IntegrityError), transaction.atomic():
        NewGameRequest.objects.create(**(engine_fields | {"figures": stated_request.figures}))


def test_the_facilitys_figures_are_signed_and_frozen_with_the_request(stated_request, compliance_officer, password):
    signature = services.request_sign(request=stated_request, user=compliance_officer, password=password)
    assert signature.content_hash == stated_request.content_hash()
    assert stated_request.signable_content()["figures"]["wagers"][0]["house_edge"] == "2/38"
    stated_request.figures = {"stated_by": "x", "wagers": []}
    with pytest.raises(SignedRecordError):
        stated_request.save()


def test_stated_figures_altered_behind_the_applications_back_are_found(stated_request, compliance_officer,
                                                                       password):
    figures = dict(stated_request.figures)
    figures["wagers"] = [figures["wagers"][0] | {"house_edge": "1/20"}]
    behind_the_applications_back("UPDATE newgames_newgamerequest SET figures = %s WHERE id = %s",
                                 [json.dumps(figures), stated_request.pk])
    stated_request.refresh_from_db()
    refusals = selectors.filing_refusals(stated_request)
    assert any("no longer read" in r and "it is 1/19" in r for r in refusals), refusals
    with pytest.raises(ValidationError, match="no longer read"):
        services.request_sign(request=stated_request, user=compliance_officer, password=password)


def test_a_new_game_with_the_facilitys_figures_needs_every_other_item_too(prepare_stated):
    with pytest.raises(ValidationError, match="Give the request a title"):
        prepare_stated(title="")
    with pytest.raises(ValidationError, match=r"variation of an authorized game.*§ 521.4\(1\)\(i\)"):
        prepare_stated(classification="")
    assert NewGameRequest.objects.count() == 0
    assert stated_fields()["kind"] == "new_game"
