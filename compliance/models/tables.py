"""The table registry: games and the tables of each facility."""

from __future__ import annotations

from django.db import models

from compliance.models.base import AuditedModel

__all__ = ["Game", "GamingTable"]


class Game(AuditedModel):
    """An authorized table game and the chapter of 58 Pa. Code that governs it."""

    code = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=100, unique=True)
    chapter = models.CharField(max_length=10, blank=True, help_text="Chapter of 58 Pa. Code, e.g. 577")
    banking = models.BooleanField(
        default=True, help_text="Patrons wager against the house; Match Play Coupons only here, § 525.22(a)"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class GamingTable(AuditedModel):
    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="tables")
    number = models.CharField(max_length=20, help_text="Table number as painted on the layout")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="tables")
    pit = models.CharField(max_length=40, blank=True)
    is_open = models.BooleanField(default=False)

    class Meta:
        ordering = ["facility", "pit", "number"]
        constraints = [models.UniqueConstraint(fields=["facility", "number"], name="table_number_unique_per_facility")]

    def __str__(self) -> str:
        return f"Table {self.number} ({self.game.name})"
