"""The kinds of filing as data, and what is still missing in words, with no database."""

from __future__ import annotations

from compliance.citations import cite
from compliance.providers.filing_kinds import (
    APPLICATION_ITEMS,
    KINDS,
    SECTIONS,
    kind_of,
    permission_missing,
    section_missing,
)


def test_every_kind_cites_a_clause_of_the_catalogue_and_belongs_to_one_section():
    for kind in KINDS:
        assert cite(kind.clause) and f"§ {kind.clause}" in kind.label, kind.code
        assert [s.clause for s in SECTIONS if kind.code in s.kinds] == [kind.section], kind.code
    assert kind_of("nothing") is None


def test_528_8_a_1_is_the_complete_528_2_a_submission_and_each_missing_item_names_its_clause():
    everything = [*APPLICATION_ITEMS, "due_diligence", "applicant_agreement"]
    assert permission_missing(everything) == []
    [only] = permission_missing([c for c in everything if c != "application_fee"])
    assert only == ("§ 528.8(a)(1), the completed application this certificate holder filed under § 528.2: "
                    "nonrefundable application fee paid (§ 528.2(a)(2))")
    missing = permission_missing([])
    assert [m.split(",")[0].split(":")[0] for m in missing] == ["§ 528.8(a)(1)", "§ 528.8(a)(2)", "§ 528.8(a)(3)"]
    assert "Certification Application and Disclosure Information Form" in missing[0]  # a form's name keeps its capitals


def test_what_each_section_still_lacks():
    assert "§ 528.2(c)" in section_missing("528.2", APPLICATION_ITEMS)
    assert section_missing("528.2", [*APPLICATION_ITEMS, "laboratory_costs"]) == ""
    assert "No qualification recorded" in section_missing("528.3", [])
    assert section_missing("528.3", ["qualification"], roles=["salesperson"]).startswith("No officer or director")
    assert section_missing("528.3", ["qualification"], roles=["officer_director"]) == ""
    assert section_missing("528.9", ["investigation"], latest_finding="suitable") == ""
    assert "§ 528.9(b)" in section_missing("528.9", ["investigation"], latest_finding="avoid")
    assert "§ 528.9(a)" in section_missing("528.9", ["violation_report"])
