"""Every document of the Rules Submission printed with long values (a long title, a name in three scripts, the
largest limits): in embedded Unicode fonts, nothing printed over anything else or off the page, in the Board's words
(never the code's); the signs of the limits sized to be read at the table."""

from __future__ import annotations

import io
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from compliance.models import Game
from compliance.submissions import documents, limits, selectors, services
from tests.factories import PASSWORD
from tests.pdf_checks import assert_clean_pdf, text_runs
from tests.submissions.conftest import NOW, TODAY, approve

pytestmark = pytest.mark.django_db

LONG_TITLE = ("Amendment for the autumn season: Sic Bo, Asia Poker, High Roll Dice and Three Dice Football with "
              "every optional wager — prepared by Łukasz Żółć, Nguyễn Văn An and 王小明")


def keep(name: str, pdf: bytes) -> None:
    """Kept to look at when DOCUMENTS_OUT names a directory (pdftoppm -png -r 50)."""
    if out := os.environ.get("DOCUMENTS_OUT"):
        Path(out, name).write_bytes(pdf)


@pytest.fixture
def long_submission(approved: Any, compliance_officer: Any) -> Any:
    sub = services.submission_draft(facility=approved.facility, title=LONG_TITLE, user=compliance_officer,
                                    summary="Adds the optional wagers of every game. " * 12)
    for code in ("sic-bo", "high-roll-dice"):
        services.submission_game_set(submission=sub, code=code, values=sub.rules[code], user=compliance_officer)
    sub.refresh_from_db()
    return approve(sub, compliance_officer)


def test_the_filed_version_and_the_podium_print_clean(long_submission):
    text = assert_clean_pdf(documents.submission_pdf(long_submission, printed_for="王小明 (EMP-9)"))
    flat = " ".join(text.split())
    assert "Rules Submission: Rules Submission" not in flat and "Łukasz Żółć" in flat and "王小明" in flat
    podium = documents.podium_pdf(long_submission.facility, long_submission, printed_for="Nguyễn Văn An")
    keep("podium.pdf", podium)
    assert "Nguyễn Văn An" in assert_clean_pdf(podium)


def test_a_submission_titled_as_its_kind_does_not_say_it_twice(draft, compliance_officer):
    sub = services.submission_draft(facility=draft.facility, title="Rules Submission", user=compliance_officer)
    text = " ".join(assert_clean_pdf(documents.submission_pdf(sub)).split())
    assert "Rules Submission: Rules Submission" not in text and "Rules Submission" in text


def test_every_sign_and_guide_prints_clean(long_submission, sic_bo, asia, hrd, floorperson, compliance_officer,
                                           signs_approved):
    for table in (sic_bo, asia, hrd):
        rules = selectors.table_rules(table)
        for approval in (None, signs_approved["rules"]):
            pdf = documents.payout_sign_pdf(rules, approval)
            keep(f"payout-{table.number}-{'approved' if approval else 'preview'}.pdf", pdf)
            assert_clean_pdf(pdf)
    limits.limit_change_request(table=sic_bo, minimum="10000", maximum="1000000", patrons_playing=False,
                                user=floorperson)
    rules = selectors.table_rules(sic_bo)
    for approval in (None, signs_approved["limits"]):
        pdf = documents.limits_sign_pdf(rules, approval)
        keep(f"limits-{'approved' if approval else 'preview'}.pdf", pdf)
        assert_clean_pdf(pdf)
    change = limits.limit_change_request(table=sic_bo, minimum="25000", maximum="1000000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=40), user=floorperson)
    for approval in (None, signs_approved["limit-change"]):
        pdf = documents.limit_sign_pdf(change, selectors.current_limits(sic_bo), approval)
        keep(f"limit-change-{'approved' if approval else 'preview'}.pdf", pdf)
        assert_clean_pdf(pdf)
    for code in ("sic-bo", "asia-poker", "high-roll-dice"):
        guide = services.guide_generate(facility=sic_bo.facility, game=Game.objects.get(code=code),
                                        user=compliance_officer)
        services.guide_submit(guide=guide, user=compliance_officer, password=PASSWORD)
        services.guide_approval_record(guide=guide, approved_on=TODAY, reference="BGO-G1", user=compliance_officer)
        pdf = documents.guide_pdf(guide)
        keep(f"guide-{code}.pdf", pdf)
        assert_clean_pdf(pdf)


def _largest(pdf: bytes, words: str) -> float:
    return max(run.size for run in text_runs(pdf) if words in run.text)


def test_the_limits_signs_are_signs_read_at_a_table(long_submission, sic_bo, floorperson, signs_approved):
    """The limits in type of 48 points at least, the game's name large, on a landscape page, centred."""
    limits.limit_change_request(table=sic_bo, minimum="10", maximum="500", patrons_playing=False, user=floorperson)
    change = limits.limit_change_request(table=sic_bo, minimum="25", maximum="1000", patrons_playing=True,
                                         effective_at=NOW + timedelta(minutes=40), user=floorperson)
    signs = {
        "in force": documents.limits_sign_pdf(selectors.table_rules(sic_bo), signs_approved["limits"]),
        "preview": documents.limits_sign_pdf(selectors.table_rules(sic_bo), None),
        "change": documents.limit_sign_pdf(change, selectors.current_limits(sic_bo), signs_approved["limit-change"]),
    }
    for name, pdf in signs.items():
        keep(f"sign-{name.replace(' ', '-')}.pdf", pdf)
        page = PdfReader(io.BytesIO(pdf)).pages[0]
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        assert width > height, name  # landscape
        money = ("$10.00", "$500.00") if name != "change" else ("$25.00", "$1,000.00")
        for amount in money:
            assert _largest(pdf, amount) >= 48, (name, amount)
        assert _largest(pdf, "Sic Bo") >= 28, name
        amounts = [r for r in text_runs(pdf) if r.page == 1 and r.text.strip() in money]
        assert len(amounts) == 2, name
        left, right = min(r.x for r in amounts), max(r.x + r.width for r in amounts)
        assert abs((left + right) / 2 - width / 2) < 0.05 * width, name  # centred on the page
