"""Names and addresses folded the way screening compares them (pure functions, no database)."""

from __future__ import annotations

import pytest

from compliance.exclusion.names import (
    address_key,
    entry_names,
    fold,
    given_forms,
    names_from_text,
    parse_name,
    serialise_names,
)


@pytest.mark.parametrize(("written", "folded"), [
    ("José Álvarez-Núñez", "jose alvarez nunez"),
    ("SEÁN O'BRIEN", "sean obrien"),
    ("Bjørn Łukasz Straße", "bjorn lukasz strasse"),
    ("  Mary-Kate   Olsen ", "mary kate olsen"),
])
def test_folding_sets_accents_case_and_marks_aside(written, folded):
    assert fold(written) == folded


def test_a_name_is_read_with_or_without_a_comma_and_without_titles_or_suffixes():
    plain = parse_name("Mr. Robert J. Smith Jr.")[0]
    comma = parse_name("Smith, Robert J")[0]
    assert (plain.first, plain.middles, plain.last) == ("robert", ("j",), "smith")
    assert (comma.first, comma.middles, comma.last) == ("robert", ("j",), "smith")


def test_surname_words_are_joined_so_particles_and_hyphens_do_not_matter():
    assert parse_name("Ludwig van Beethoven")[0].last == "vanbeethoven"
    assert entry_names("Ludwig", "", "Van Beethoven", [])[0].last == "vanbeethoven"
    assert "smithjones" in {n.last for n in parse_name("Mary Smith Jones")}
    assert {n.last for n in entry_names("Maria", "", "Garcia-Lopez", [])} == {"garcialopez", "garcia", "lopez"}


def test_nicknames_are_read_as_their_full_names():
    assert "robert" in given_forms("bob")
    assert "william" in given_forms("bill")
    assert "elizabeth" in given_forms("liz") and "elizabeth" in given_forms("beth")
    assert given_forms("robert") == frozenset({"robert"})


def test_an_alias_of_one_word_is_a_given_name_with_the_listed_surname():
    names = entry_names("Robert", "", "Smith", ["Bobby", "Rob Jones"])
    assert {(n.first, n.last, n.kind) for n in names} >= {("bobby", "smith", "alias"), ("rob", "jones", "alias")}


def test_stored_keys_read_back_as_they_were():
    names = entry_names("Robert", "James", "Garcia Lopez", ["Bobby"])
    assert names_from_text(serialise_names(names)) == names


@pytest.mark.parametrize(("written", "key"), [
    ("12 Main Street, Apt 4, Harrisburg, PA 17101-1234", "12 main st apt 4|17101"),
    ("12 MAIN ST #4, Harrisburg, PA, 17101", "12 main st apt 4|17101"),
    ("12 Main St, Harrisburg, Pennsylvania", "12 main st|harrisburg"),
    ("123 Virginia Ave, Pittsburgh, PA 15201", "123 virginia ave|15201"),
    ("Harrisburg, PA", ""),
    ("", ""),
])
def test_addresses_reduce_to_a_street_and_zip_key(written, key):
    assert address_key(written) == key
