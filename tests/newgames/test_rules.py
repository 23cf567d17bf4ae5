"""The checks that need no database: a file's kind by its first bytes, the 5 MB limit, the list of other
jurisdictions, file names, and which engine game is the game of a feature."""

from __future__ import annotations

import pytest

from compliance.newgames.rules import (
    MAX_PICTURE_BYTES,
    JurisdictionsError,
    clean_file_name,
    engine_fits,
    file_kind,
    jurisdictions_from,
    jurisdictions_text,
    upload_refusal,
)


def test_a_file_is_known_by_its_first_bytes_not_its_name():
    assert file_kind(b"\x89PNG\r\n\x1a\n....").content_type == "image/png"
    assert file_kind(b"\xff\xd8\xff\xe0").content_type == "image/jpeg"
    assert file_kind(b"%PDF-1.7").content_type == "application/pdf"
    assert file_kind(b"GIF89a") is None
    assert file_kind(b"<svg xmlns=") is None
    refusal = upload_refusal("layout.png", 100, b"GIF89a......")
    assert "layout.png is not a PNG image, a JPEG image or a PDF document" in refusal and "Nothing was saved" in refusal


def test_exactly_5_mb_passes_and_one_byte_more_is_refused_naming_the_file_and_the_limit():
    assert MAX_PICTURE_BYTES == 5 * 1024 * 1024
    assert upload_refusal("big.pdf", MAX_PICTURE_BYTES, b"%PDF-") == ""
    refusal = upload_refusal("big.pdf", MAX_PICTURE_BYTES + 1, b"%PDF-")
    assert refusal.startswith("big.pdf is 5,242,881 bytes") and "at most 5 MB (5,242,880 bytes)" in refusal
    assert "empty" in upload_refusal("nothing.png", 0, b"")


def test_other_jurisdictions_are_a_list_or_none():
    assert jurisdictions_from("Nevada\nNew Jersey; Mississippi, Nevada") == ["Nevada", "New Jersey", "Mississippi"]
    assert jurisdictions_from("  None. ") == []
    assert jurisdictions_text([]).startswith("None")
    for refused in ("", "  \n ", "none\nNevada"):
        with pytest.raises(JurisdictionsError):
            jurisdictions_from(refused)
    with pytest.raises(JurisdictionsError, match="at most 120 characters"):
        jurisdictions_from("x" * 121)


def test_a_file_name_keeps_no_folder_no_control_character_and_no_more_than_200_characters():
    assert clean_file_name("C:\\Users\\me\\layout.png") == "layout.png"
    assert clean_file_name("../../etc/passwd") == "passwd"
    assert clean_file_name("a\x00b\nc.jpg") == "abc.jpg"
    assert clean_file_name("") == "unnamed"
    long = clean_file_name("x" * 500 + ".jpeg")
    assert len(long) == 200 and long.endswith(".jpeg")


def test_the_engine_game_of_a_feature_is_the_game_of_its_chapter():
    assert engine_fits("539", "ch. 539")
    assert not engine_fits("539", "ch. 577")
    assert not engine_fits("", "ch. 539")  # a game whose chapter this system does not carry: no model
