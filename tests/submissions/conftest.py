"""Rules Submission fixtures: a clock on a known gaming day, tables of each game, and an approved version."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from compliance.submissions import services, signs
from compliance.submissions.models import SignKind
from tests.equipment.conftest import asia, make_table, sic_bo  # noqa: F401  (the tables of the equipment tests)
from tests.factories import PASSWORD

NY = ZoneInfo("America/New_York")
TODAY = date(2026, 3, 2)
NOW = datetime(2026, 3, 2, 20, 0, tzinfo=NY)  # 8 pm on the facility's clock, gaming day 2 Mar


@pytest.fixture
def clock() -> Any:
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


ASIA = {"bonus_wager": "yes", "paytable": "B", "adjacent_areas": "no",
        "dealer_hand_setting": "Highest possible high hand, then medium hand, as the house way card shows.",
        "ace_low_straight_flush": "no", "ace_low_straight": "no", "payout_limit": ""}


def approve(sub: Any, officer: Any, *, effective_on: date = TODAY, decided_on: date = TODAY) -> Any:
    services.submission_submit(submission=sub, user=officer, password=PASSWORD)
    services.board_decision_record(submission=sub, decision="approved", decided_on=decided_on,
                                   effective_on=effective_on, reference="BGO-1", user=officer)
    sub.refresh_from_db()
    return sub


@pytest.fixture
def draft(clock: Any, facility: Any, compliance_officer: Any) -> Any:
    sub = services.submission_draft(facility=facility, title="Initial Rules Submission", user=compliance_officer)
    services.submission_game_set(submission=sub, code="asia-poker", values=ASIA, user=compliance_officer)
    sub.refresh_from_db()
    return sub


@pytest.fixture
def approved(draft: Any, compliance_officer: Any) -> Any:
    return approve(draft, compliance_officer)


@pytest.fixture
def hrd(facility: Any) -> Any:
    return make_table(facility, "high-roll-dice", "HRD-1")


@pytest.fixture
def signs_approved(clock: Any, facility: Any, compliance_officer: Any) -> dict[str, Any]:
    """The Bureau's approval of every kind of sign (§ 521.8(d)): the signs print for use, and limits may change with
    patrons playing."""
    return {kind: signs.sign_approval_record(
        facility=facility, kind=kind, location="On the sign stand at the dealer's left", size="letter",
        language="English", approved_on=TODAY, reference=f"BGO-S-{kind}", user=compliance_officer)
        for kind in SignKind.values}
