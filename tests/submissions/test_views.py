"""The Rules Submission pages: a compliance officer drafts, chooses, files and records the Board's decision
through the forms; the floor changes limits; the inspector reads every page and every version and posts
nothing; hostile input answers in words, never a 500."""

from __future__ import annotations

import html
import sys
from datetime import timedelta

import pytest
from django.urls import reverse

from compliance.submissions import limits, services
from compliance.submissions.models import (
    BoardDecision,
    GamingGuide,
    RulesSubmission,
    SignApproval,
    TableSetting,
    WagerLimitChange,
)
from tests.factories import PASSWORD
from tests.submissions.conftest import NOW, TODAY

pytestmark = pytest.mark.django_db

HOSTILE = ["", "-1", "99999999999999999999", "1e400", "NaN", "١٢٣", "<b>x", "=HYPERLINK(\"x\")", "9999-12-31",
           "0001-01-01", "2026-02-30", "x" * 3000, "150 for 1", "9" * 40 + " to 1"]


@pytest.fixture
def world(approved, asia, hrd, sic_bo, floorperson, compliance_officer, signs_approved):
    from compliance.models import Game

    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(hours=1), user=floorperson)
    draft = services.submission_draft(facility=approved.facility, title="Amendment", user=compliance_officer)
    guide = services.guide_generate(facility=approved.facility, game=Game.objects.get(code="sic-bo"),
                                    user=compliance_officer)
    return {"approved": approved, "draft": draft, "change": change, "guide": guide, "asia": asia, "hrd": hrd,
            "sic_bo": sic_bo}


def _pages(w):
    a, d, c, g = w["approved"].pk, w["draft"].pk, w["change"].pk, w["guide"].pk
    return [reverse("submissions:list"), reverse("submissions:draft"), reverse("submissions:detail", args=[a]),
            reverse("submissions:detail", args=[d]), reverse("submissions:pdf", args=[a]),
            reverse("submissions:game", args=[d, "sic-bo"]), reverse("submissions:game", args=[d, "asia-poker"]),
            reverse("submissions:submit", args=[d]), reverse("submissions:decision", args=[a]),
            f"{reverse('submissions:compare')}?a={a}&b={d}", reverse("submissions:tables"),
            reverse("submissions:table-setting", args=[w["asia"].pk]),
            reverse("submissions:payout-sign", args=[w["hrd"].pk]), reverse("submissions:podium"),
            reverse("submissions:limits"), reverse("submissions:limit-request", args=[w["hrd"].pk]),
            reverse("submissions:limit-change", args=[c]), reverse("submissions:limit-sign", args=[c]),
            reverse("submissions:limit-post", args=[c]), reverse("submissions:limit-announce", args=[c]),
            reverse("submissions:limit-cancel", args=[c]), reverse("submissions:guides"),
            reverse("submissions:guide-generate"), reverse("submissions:guide", args=[g]),
            reverse("submissions:guide-pdf", args=[g]), reverse("submissions:guide-submit", args=[g]),
            reverse("submissions:guide-approval", args=[g]), reverse("submissions:requirements", args=[d, "sic-bo"]),
            reverse("submissions:requirements", args=[d, "three-dice-football"]),
            reverse("submissions:limits-sign", args=[w["sic_bo"].pk]),
            f"{reverse('submissions:limits-sign', args=[w['sic_bo'].pk])}?preview=1",
            f"{reverse('submissions:payout-sign', args=[w['hrd'].pk])}?preview=1",
            reverse("submissions:signs"), reverse("submissions:sign-approval-create")]


def _counts():
    return [m.objects.count() for m in (RulesSubmission, BoardDecision, TableSetting, WagerLimitChange, GamingGuide,
                                        SignApproval)] + [[s.rules for s in RulesSubmission.objects.order_by("pk")]]


def test_the_inspector_reads_every_page_and_version_and_cannot_post(world, inspector, client_for):
    client = client_for(inspector)
    before = _counts()
    for url in _pages(world):
        assert client.get(url).status_code == 200, url
    for url in _pages(world):
        assert client.post(url, {"title": "x", "password": PASSWORD, "reason": "x"}).status_code == 403, url
    assert _counts() == before
    compare = client.get(f"{reverse('submissions:compare')}?a={world['approved'].pk}&b={world['draft'].pk}")
    assert "No choice differs." in compare.content.decode()


def test_a_compliance_officer_chooses_files_and_records_the_decision_through_the_forms(world, compliance_officer,
                                                                                        client_for):
    client = client_for(compliance_officer)
    draft = world["draft"]
    page = client.get(reverse("submissions:game", args=[draft.pk, "asia-poker"])).content.decode()
    assert "5.7891%" in page and "6.5429%" in page and "7.5401%" in page  # beside paytables A, B, C
    refused = client.post(reverse("submissions:game", args=[draft.pk, "sic-bo"]),
                          {**draft.rules["sic-bo"], "three-of-a-kind": "149 to 1"})
    assert refused.status_code == 422
    assert "Three of a Kind pays at least 150 to 1 (§ 539.6(b)); 149 to 1 is lower." in html.unescape(
        refused.content.decode())
    saved = client.post(reverse("submissions:game", args=[draft.pk, "sic-bo"]),
                        {**draft.rules["sic-bo"], "three-of-a-kind": "180 to 1"})
    assert saved.status_code == 302
    assert client.post(reverse("submissions:submit", args=[draft.pk]), {"password": PASSWORD}).status_code == 302
    decided = client.post(reverse("submissions:decision", args=[draft.pk]),
                          {"decision": "approved", "decided_on": TODAY.isoformat(),
                           "effective_on": TODAY.isoformat(), "reference": "PGCB 7"})
    assert decided.status_code == 302
    detail = client.get(reverse("submissions:detail", args=[draft.pk])).content.decode()
    assert "In force" in detail and "180 to 1" in detail


def test_a_floorperson_schedules_posts_and_announces_a_change(world, floorperson, client_for):
    client = client_for(floorperson)
    hrd = world["hrd"]
    url = reverse("submissions:limit-request", args=[hrd.pk])
    too_soon = client.post(url, {"minimum": "25", "maximum": "500", "patrons_playing": "yes",
                                 "effective_day": "2026-03-02", "effective_time": "20:29"})
    assert "at least 30 minutes' notice" in html.unescape(too_soon.content.decode())
    done = client.post(url, {"minimum": "25", "maximum": "500", "patrons_playing": "yes",
                             "effective_day": "2026-03-02", "effective_time": "20:30"})
    assert done.status_code == 302
    change = WagerLimitChange.objects.get(table=hrd, state="scheduled")
    assert client.post(reverse("submissions:limit-post", args=[change.pk])).status_code == 302
    assert client.post(reverse("submissions:limit-announce", args=[change.pk])).status_code == 302
    change.refresh_from_db()
    assert change.posted_at and change.announced_at


def test_hostile_input_never_gives_a_500(world, compliance_officer, floorperson, shift_manager, client_for):
    officer, floor, manager = client_for(compliance_officer), client_for(floorperson), client_for(shift_manager)
    d, c = world["draft"].pk, world["change"].pk
    for value in HOSTILE:
        for client, url, field_names in (
            (officer, reverse("submissions:draft"), ["title", "summary"]),
            (officer, reverse("submissions:game", args=[d, "sic-bo"]), ["three-of-a-kind", "small", "big"]),
            (officer, reverse("submissions:game", args=[d, "asia-poker"]),
             ["bonus_wager", "paytable", "payout_limit", "dealer_hand_setting"]),
            (officer, reverse("submissions:game", args=[d, "high-roll-dice"]), ["six_dice", "millionaire_row_max"]),
            (officer, reverse("submissions:decision", args=[world["approved"].pk]),
             ["decision", "decided_on", "effective_on", "reason"]),
            (floor, reverse("submissions:limit-request", args=[world["hrd"].pk]),
             ["minimum", "maximum", "patrons_playing", "effective_day", "effective_time"]),
            (floor, reverse("submissions:limit-cancel", args=[c]), ["reason"]),
            (manager, reverse("submissions:table-setting", args=[world["asia"].pk]), ["bonus_wager"]),
            (officer, reverse("submissions:guide-approval", args=[world["guide"].pk]), ["approved_on", "reference"]),
            (officer, reverse("submissions:guide-generate"), ["game"]),
            (officer, reverse("submissions:guide-submit", args=[world["guide"].pk]), ["confirm"]),
            (officer, reverse("submissions:submit", args=[d]), ["confirm"]),
            (officer, reverse("submissions:requirements", args=[d, "sic-bo"]),
             ["words_1", "increment_1", "words_2", "increment_6"]),
            (officer, reverse("submissions:requirements", args=[d, "three-dice-football"]), ["words_1", "increment_1"]),
            (officer, reverse("submissions:sign-approval-create"),
             ["kind", "location", "size", "language", "approved_on", "reference"]),
            (floor, reverse("submissions:limit-post", args=[c]), ["confirm"]),
            (floor, reverse("submissions:limit-announce", args=[c]), ["confirm"]),
        ):
            response = client.post(url, dict.fromkeys(field_names, value))
            allowed = (200, 302, 400, 422) if "\x00" in str(value) else (200, 302, 422)  # 400: a NUL, refused before the view; 422: refused on the form
            assert response.status_code in allowed, (url, value, response.status_code)
    for url in (f"{reverse('submissions:compare')}?a=x&b=%00", "/submissions/999999/",
                "/submissions/1/games/no-such-game/", "/guides/%3Cscript%3E/", "/guides/keystone/x.pdf"):
        assert officer.get(url).status_code in ((200, 400, 404) if "%00" in url else (200, 404)), url  # 400: a NUL


def test_the_dashboard_panel_says_what_is_waiting(world, compliance_officer, floorperson, client_for):
    page = client_for(compliance_officer).get("/").content.decode()
    assert "In force: Rules Submission v1" in page and "Version 2 (draft): Amendment" in page
    floor = client_for(floorperson).get("/").content.decode()
    assert "limits change at 21:00 — post the sign, then announce it" in floor


def test_the_panel_lists_the_guides_the_guides_page_does_reading_the_version_in_force_once(
        world, compliance_officer, floorperson, client_for, monkeypatch):
    from compliance.submissions import selectors

    facility = world["approved"].facility
    expected = selectors.guides_needing_approval(facility)  # the guides page's own reading, each part read anew
    assert any(game.code == "sic-bo" and "send version 1 to the Bureau" in words for game, words in expected)
    assert any(game.code != "sic-bo" for game, _ in expected)  # games with rules in force and no guide yet
    reads = []
    in_force = selectors.in_force

    def counted(*args, **kwargs):
        reads.append(sys._getframe(1).f_code.co_name)
        return in_force(*args, **kwargs)

    monkeypatch.setattr(selectors, "in_force", counted)
    page = html.unescape(client_for(compliance_officer).get("/").content.decode())
    for game, words in expected:
        assert f"{game.name} guide: {words}" in page
    # The panel's version in force is the one its guides are measured against: read once by the panel, never again
    # for its guides (the tables' readiness verdicts, computed elsewhere, read it for themselves).
    assert [r for r in reads if r in ("submissions_panel", "guide_rows", "current_guide_hash")] == ["submissions_panel"]
    floor = html.unescape(client_for(floorperson).get("/").content.decode())
    assert not any(f"{game.name} guide:" in floor for game, _ in expected)  # compliance's work, not the floor's




def test_list_pages_take_the_same_queries_whatever_the_tables(approved, facility, compliance_officer, floorperson,
                                                             client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.equipment.conftest import make_table

    client = client_for(compliance_officer)
    urls = [reverse("submissions:list"), reverse("submissions:tables"), reverse("submissions:limits"),
            reverse("submissions:guides")]

    def counts():
        found = []
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            found.append(len(queries))
        return found

    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            table = make_table(facility, ("asia-poker", "sic-bo", "high-roll-dice")[i % 3], f"T-{i}")
            limits.limit_change_request(table=table, minimum="25", maximum="500", patrons_playing=False,
                                        user=floorperson)

    add(3, 0)
    few = counts()
    add(9, 3)
    assert counts() == few


def test_the_figures_of_typed_odds_come_back_without_saving(world, compliance_officer, inspector, client_for):
    url = reverse("submissions:figures", args=["sic-bo"])
    answer = client_for(compliance_officer).get(url, {"big": "1 to 1", "three-of-a-kind": "180 to 1"}).json()
    assert answer["error"] == "" and answer["wagers"]["three-of-a-kind"]["payout_odds"] == "180 to 1"
    assert answer["wagers"]["big"]["house_advantage"] == "2.7778%"
    refused = client_for(inspector).get(url, {"three-of-a-kind": "149 to 1"}).json()
    assert "Three of a Kind pays at least 150 to 1 (§ 539.6(b)); 149 to 1 is lower." in refused["error"]
    for hostile in ("9" * 300, "1 for 1", "<b>", "\x00"):
        expected = 400 if "\x00" in hostile else 200  # a NUL is refused before the view (compliance.request_limits)
        assert client_for(compliance_officer).get(url, {"big": hostile}).status_code == expected
    assert client_for(compliance_officer).get(reverse("submissions:figures", args=["nope"])).status_code == 404
    assert world["draft"].rules == type(world["draft"]).objects.get(pk=world["draft"].pk).rules  # nothing saved
