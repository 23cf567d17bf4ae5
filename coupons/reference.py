"""Reference data of the coupon ledger: the program types (data, not code)."""

from __future__ import annotations

from typing import Any

PROGRAMS = [("match-play", "Match Play Coupon"), ("direct-bet", "Direct Bet Coupon")]


def seed_coupon_programs(apps: Any, schema_editor: Any = None) -> None:
    program_model = apps.get_model("coupons", "CouponProgram")
    for code, name in PROGRAMS:
        program_model.objects.get_or_create(code=code, defaults={"name": name})
