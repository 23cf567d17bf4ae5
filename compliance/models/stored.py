"""Files the application keeps for itself (a facility's logo) in the database, so every web host and every worker
reads the same bytes with no shared disk (compliance/storage.py; docs/operations.md, "Files")."""

from __future__ import annotations

from django.db import models

from compliance.bounds import FILE_BYTES


class StoredFile(models.Model):
    """One file of Django's default storage: its name, bytes and SHA-256; written once, replaced by a new name."""

    name = models.CharField(max_length=255, unique=True)
    data = models.BinaryField()
    size = models.PositiveIntegerField(validators=FILE_BYTES.validators)
    sha256 = models.CharField(max_length=64)
    content_type = models.CharField(max_length=100)
    stored_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~models.Q(name=""), name="stored_file_name_required"),
                       *FILE_BYTES.checks("size")]

    def __str__(self) -> str:
        return self.name
