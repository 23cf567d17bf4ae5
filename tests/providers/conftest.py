"""Provider fixtures: a clock on a known gaming day, a provider, an offering of Sic Bo and a Sic Bo table."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from compliance.models import Game
from compliance.providers import services
from tests.equipment.conftest import make_table

NY = ZoneInfo("America/New_York")
TODAY = date(2026, 3, 2)  # the gaming day at NOW


def at_noon(day: date) -> datetime:
    """Noon of ``day`` on the facility's clock: well inside that gaming day."""
    return datetime(day.year, day.month, day.day, 12, 0, tzinfo=NY)


NOW = at_noon(TODAY)


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def provider(facility: Any, compliance_officer: Any) -> Any:
    return services.provider_register(facility=facility, name="Dragon Side Bets LLC", board_file_number="GSP-528-01",
                                      contact="Jo Tan, 555-0100", user=compliance_officer)


@pytest.fixture
def offering(facility: Any, provider: Any, compliance_officer: Any) -> Any:
    return services.offering_add(facility=facility, provider=provider, game=Game.objects.get(code="sic-bo"),
                                 name="Triple Dragon side bet", user=compliance_officer)


@pytest.fixture
def table(facility: Any) -> Any:
    return make_table(facility, "sic-bo", "SB-7")


PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"
PERMISSION_KINDS = ("application", "application_fee", "individual_applications", "holder_statement", "due_diligence",
                    "applicant_agreement")


def file_filing(facility: Any, provider: Any, officer: Any, kind: str, on: date = date(2025, 12, 1),
                **particulars: Any) -> Any:
    """One filing of ``kind`` with a small PDF as its document."""
    return services.filing_record(facility=facility, provider=provider, kind=kind, filed_on=on,
                                  document=(f"{kind}.pdf", PDF), user=officer, **particulars)


def permission_filings(facility: Any, provider: Any, officer: Any, on: date = date(2025, 12, 1)) -> None:
    """What § 528.8(a)(1)–(3) asks on record before a permission to conduct business before certification."""
    for kind in PERMISSION_KINDS:
        file_filing(facility, provider, officer, kind, on)
