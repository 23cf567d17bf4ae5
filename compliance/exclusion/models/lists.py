"""The facility's copies of the Board's exclusion lists (§ 525.21(q)(7); chapters 503a and 511a).

Each import is a new :class:`ExclusionList` (a version), signed by the compliance officer who imported it,
with its entries (:class:`ExclusionEntry`). Nothing is replaced or deleted: the newest version of a kind
is the one in force, older ones stay, and every screening run names the versions it used.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from django.db import models
from django.urls import reverse

from compliance.bounds import COUNT_FROM_ONE, Bounds
from compliance.models import AppendOnly, Meaning, RegulatedRecord, SignatureRequirement
from compliance.roles import Role

__all__ = ["KEYS_VERSION", "ExclusionEntry", "ExclusionList", "ListKind"]

# The version of the stored normalised keys (compliance.exclusion.names). Raise it when normalisation
# changes: entries keyed under an older version are keyed again from their columns when screened.
KEYS_VERSION = 1
_KEYS_VERSIONS = Bounds(1, 1000)


class ListKind(models.TextChoices):
    SELF_EXCLUSION = "self_exclusion", "Self-exclusion list (ch. 503a)"
    INVOLUNTARY = "involuntary_exclusion", "Exclusion list of persons required to be excluded (ch. 511a)"


class ExclusionList(RegulatedRecord):
    """One imported copy of a Board list: its date, the file's SHA-256 and how many entries it held."""

    citation = "525.21(q)(7)"
    signature_requirements = (
        SignatureRequirement(
            "imported", Meaning.RECORDED, "Compliance officer importing the Board's list",
            roles=frozenset({Role.COMPLIANCE_OFFICER}), citation="525.21(q)(7)",
        ),
    )

    kind = models.CharField(max_length=32, choices=ListKind.choices)
    board_list_date = models.DateField("date of the Board's list", help_text="The date the Board's list is as of")
    file_name = models.CharField(max_length=255)
    sha256 = models.CharField("SHA-256 of the file", max_length=64)
    row_count = models.PositiveIntegerField("entries", validators=COUNT_FROM_ONE.validators)
    keys_version = models.PositiveSmallIntegerField(default=KEYS_VERSION, validators=_KEYS_VERSIONS.validators)

    class Meta:
        ordering = ["-board_list_date", "-created_at", "-pk"]
        verbose_name = "exclusion list"
        indexes = [models.Index(fields=["facility", "kind", "-board_list_date", "-created_at"])]
        constraints = [
            models.UniqueConstraint(fields=["facility", "kind", "board_list_date", "sha256"],
                                    name="exclusion_list_file_once_per_date"),
            models.CheckConstraint(condition=models.Q(sha256__regex=r"^[0-9a-f]{64}$"), name="exclusion_list_sha256"),
            *COUNT_FROM_ONE.checks("row_count"),
            *_KEYS_VERSIONS.checks("keys_version"),
        ]

    if TYPE_CHECKING:
        entries: Any

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.board_list_date:%d %b %Y}"

    def get_absolute_url(self) -> str:
        return reverse("exclusion:list-detail", args=[self.pk])

    @property
    def imported_at(self) -> datetime:
        return self.created_at

    @property
    def imported_by(self) -> Any:
        return self.created_by


class ExclusionEntry(AppendOnly):
    """A person on an imported list, with the columns of the Board's file and the keys screening uses.

    Entries are written once, in bulk, with their list (append-only: the database refuses UPDATE and
    DELETE). The list's signature vouches for the file's SHA-256 and entry count.
    """

    append_only_what: ClassVar[str] = "Exclusion list entries"

    exclusion_list = models.ForeignKey(ExclusionList, on_delete=models.PROTECT, related_name="entries")
    line = models.PositiveIntegerField("line of the file", validators=COUNT_FROM_ONE.validators)
    board_id = models.CharField("Board id", max_length=40)
    last_name = models.CharField(max_length=100)
    first_name = models.CharField(max_length=100)
    middle_name = models.CharField(max_length=100, blank=True)
    aliases = models.TextField(blank=True, help_text="Aliases as the file gives them, separated by ';'")
    date_of_birth = models.DateField(null=True, blank=True)
    address = models.CharField(max_length=200, blank=True)
    city = models.CharField(max_length=100, blank=True)
    state = models.CharField(max_length=2, blank=True)
    zip = models.CharField(max_length=10, blank=True)
    description = models.TextField(blank=True)
    # Normalised keys (compliance.exclusion.names), kept so a screening run need not compute them again.
    name_keys = models.TextField()
    address_key = models.CharField(max_length=400, blank=True)
    block_keys = models.TextField(help_text="Blocking keys of the screening index (compliance.exclusion.matching)")
    short_names = models.TextField(help_text="Given name and surname of each name, for the same-birthday sift")

    class Meta:
        ordering = ["exclusion_list", "line"]
        verbose_name = "exclusion list entry"
        verbose_name_plural = "exclusion list entries"
        constraints = [
            models.UniqueConstraint(fields=["exclusion_list", "board_id"], name="exclusion_entry_board_id_once"),
            # A line of the file once; and the index the list's pages walk (issue 27: 200,000 entries a list).
            models.UniqueConstraint(fields=["exclusion_list", "line"], name="exclusion_entry_line_once"),
            *COUNT_FROM_ONE.checks("line"),
        ]

    def __str__(self) -> str:
        return f"{self.full_name} (Board id {self.board_id})"

    @property
    def full_name(self) -> str:
        return " ".join(p for p in (self.first_name, self.middle_name, self.last_name) if p)

    @property
    def alias_list(self) -> list[str]:
        return [a.strip() for a in self.aliases.split(";") if a.strip()]

    @property
    def full_address(self) -> str:
        where = " ".join(p for p in (self.state, self.zip) if p)
        return ", ".join(p for p in (self.address, self.city, where) if p)

    @property
    def address_line(self) -> str:
        """The address as one line, as :func:`compliance.exclusion.names.address_key` reads it."""
        return ", ".join(p for p in (self.address, self.city, self.state, self.zip) if p)
