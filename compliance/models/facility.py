"""Facilities (certificate holders), departments and the people who work there."""

from __future__ import annotations

from datetime import time
from zoneinfo import available_timezones

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from compliance.models.base import AuditedModel

__all__ = ["Department", "Facility", "Profile", "email_lines"]


def email_lines(value: str) -> list[str]:
    """The addresses of a one-a-line field (commas and blanks also separate them)."""
    return [part for part in value.replace(",", "\n").split() if part]


def validate_email_lines(value: str) -> None:
    from django.core.validators import validate_email

    bad = []
    for address in email_lines(value):
        try:
            validate_email(address)
        except ValidationError:
            bad.append(address)
    if bad:
        raise ValidationError(f"Not an e-mail address: {', '.join(bad[:5])}. Put one address on each line.")


def _validate_time_zone(value: str) -> None:
    if value not in available_timezones():
        raise ValidationError(f"{value!r} is not a time zone name such as America/New_York")


def default_gaming_day_start() -> time:
    """06:00, a new facility's start of its gaming day. A callable, not the value: Django's check W161 warns of a
    fixed time default within ten seconds of the clock's time of day (UTC), so `check --deploy --fail-level WARNING`
    (the production smoke test) failed when it ran between 05:59:50 and 06:00:10 UTC (30 Nov 2026)."""
    return time(6, 0)


class Facility(AuditedModel):
    """A licensed facility of the certificate holder; every regulated record belongs to one."""

    code = models.SlugField(max_length=32, unique=True, help_text="Short name used in URLs and file names")
    name = models.CharField(max_length=200, help_text="Name printed on coupons and documents, § 525.21(c)(1)")
    certificate_holder = models.CharField(max_length=200, help_text="Legal name of the certificate holder")
    address = models.TextField(blank=True)
    logo = models.ImageField(upload_to="facility-logos/", blank=True)
    time_zone = models.CharField(max_length=64, default="America/New_York", validators=[_validate_time_zone])
    gaming_day_starts_at = models.TimeField(
        default=default_gaming_day_start,
        help_text="When the facility's gaming day begins, on its own clock (it ends just before this time the next "
        "morning); records are dated by the gaming day, not the calendar date",
    )
    notification_email = models.EmailField(blank=True, help_text="Where alerts for this facility are copied")
    board_recipients = models.TextField(
        blank=True, validators=[validate_email_lines],
        help_text="Where the audit chain's anchors are e-mailed at the Gaming Control Board, one address a line "
        "(the facility's compliance officers receive them too)",
    )

    class Meta:
        verbose_name_plural = "facilities"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Department(AuditedModel):
    """A department named by the regulations or the internal controls (§ 525.21(d))."""

    FINANCE = "finance"
    MARKETING = "marketing"
    TABLE_GAMES = "table_games"
    SURVEILLANCE = "surveillance"
    SECURITY = "security"
    COMPLIANCE = "compliance"

    code = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Profile(AuditedModel):
    """A person's regulated identity: printed name and Board-issued credential number."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="profile")
    full_name = models.CharField(max_length=200)
    credential_number = models.CharField(
        max_length=32,
        unique=True,
        help_text="Board-issued credential number, printed beside every signature",
    )
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="members")
    facilities = models.ManyToManyField(Facility, related_name="staff", blank=True)
    active = models.BooleanField(default=True, help_text="Inactive people can neither sign in nor sign")

    class Meta:
        ordering = ["full_name"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(credential_number=""), name="profile_credential_required"),
            models.CheckConstraint(condition=~models.Q(full_name=""), name="profile_full_name_required"),
        ]

    def __str__(self) -> str:
        from compliance.people import person_name

        return person_name(self, credential=True)
