"""Citations, roles and demo data."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from compliance.citations import CATALOGUE, cite
from compliance.demo import DEMO_PEOPLE
from compliance.models import Game, GamingTable, Profile
from compliance.roles import CAPABILITIES, Capability, Role, has_capability

SHARED = Path(__file__).resolve().parents[3] / "shared" / "CLAUSES.md"


@pytest.mark.skipif(not SHARED.exists(), reason="shared/CLAUSES.md sits beside the repository on team machines")
def test_the_catalogue_holds_every_clause_of_the_checklist():
    rows = [
        line.split("|")[1].strip()
        for line in SHARED.read_text().splitlines()
        if line.startswith("| ") and not line.startswith(("| clause", "| ---"))
    ]
    assert sorted(rows) == sorted(c.key for c in CATALOGUE)


def test_a_citation_resolves_to_its_clause_and_unknown_ones_are_refused():
    assert cite("525.21(g)(5)").label == "58 Pa. Code § 525.21(g)(5)"
    assert [c.key for c in cite("525.21(g)(5)").clauses] == ["525.21(g)(1)–(5)"]
    assert "603a" in cite("525.21(j)").current
    with pytest.raises(KeyError):
        cite("525.99")


def test_regulations_page_lists_the_screens_and_records_that_implement_a_clause(db, facility, inspector, client_for):
    page = client_for(inspector).get("/regulations/").content.decode()
    assert "§ 525.21(g)(1)–(5)" in page
    assert "Two person form" in page  # a record citing 525.21(g)
    assert "Audit trail" in page  # a screen citing 525.21(r)


@pytest.mark.django_db
def test_every_role_is_a_group_created_by_migration():
    assert set(Group.objects.values_list("name", flat=True)) >= set(Role.values)


def test_the_inspector_holds_no_capability_to_change_anything():
    writes = {cap for cap, roles in CAPABILITIES.items() if Role.BOARD_INSPECTOR in roles}
    assert writes == {Capability.VIEW_RECORDS, Capability.VIEW_AUDIT}


@pytest.mark.django_db
def test_an_inspector_who_also_holds_another_role_stays_read_only(facility, inspector):
    # (A role outside one's department is refused when granted; the inspector's read-only rule must hold
    # even for a person who holds one anyway.)
    inspector._compliance_roles = frozenset({Role.BOARD_INSPECTOR, Role.FINANCE_SUPERVISOR})
    assert not has_capability(inspector, Capability.ISSUE_COUPONS)


@pytest.mark.django_db
def test_demo_data_creates_a_person_per_role_a_floor_crew_and_tables_of_each_game():
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    assert "Demo logins" in out.getvalue()
    people = Profile.objects.select_related("user").prefetch_related("user__groups")
    roles = [g.name for p in people for g in p.user.groups.all()]
    assert set(roles) == set(Role.values)
    # Three dealers at each Three Dice Football table (§ 577.9(b)), more floorpersons for the span of § 577.9(c).
    assert roles.count(Role.DEALER) == 12 and roles.count(Role.FLOORPERSON) == 3
    games = set(GamingTable.objects.values_list("game__code", flat=True))
    assert {"three-dice-football", "high-roll-dice", "props-and-hops", "sic-bo", "asia-poker"} <= games
    again = io.StringIO()
    call_command("seed_demo", stdout=again)
    assert "already exist" in again.getvalue()
    assert Profile.objects.count() == len(DEMO_PEOPLE)
    assert Game.objects.filter(code="sic-bo", chapter="539").exists()
