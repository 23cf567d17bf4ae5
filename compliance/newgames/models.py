"""A certificate holder's written request to the Board's Executive Director to offer a new table game, or a new
wager or feature of a table game (58 Pa. Code § 521.4).

A :class:`NewGameRequest` holds every item of § 521.4: the description with the rules of play and wagering, for
a table game whether it is a variation, a composite or a new game ((1)(i)), the exact figures of each wager
((1)(ii): computed by ``compliance.games.math`` from the game and options stated, or, for a game or wager the
engine does not model, stated by the facility as exact fractions with the method of computation; kept as prepared
so the signature covers them), the reason ((2)), the other jurisdictions ((3)) and the copyright, trademark and patent
statement ((4)). Its sketches and pictures ((1)(iii)–(iv)) are :class:`RequestPicture` rows whose bytes are kept
in the database (:class:`RequestPictureContent`) with their SHA-256; the compliance officer's signature covers
those hashes, freezes the request and closes it to further pictures (the model refuses; on PostgreSQL the
database does too).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, ClassVar

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import Bounds
from compliance.models import (
    AppendOnly,
    AuditedModel,
    Game,
    Meaning,
    RegulatedRecord,
    SignatureRequirement,
    SignedPart,
    SignedRecordError,
)
from compliance.newgames.rules import MAX_PICTURE_BYTES, jurisdictions_text
from compliance.roles import Role

__all__ = [
    "CITATION",
    "STATED_BY",
    "Classification",
    "NewGameRequest",
    "PictureKind",
    "Protection",
    "RequestKind",
    "RequestPicture",
    "RequestPictureContent",
]

CITATION = "521.4(1)(i)–(iv), (2)–(4)"
STATED_BY = "stated_by"  # the key of ``figures`` naming the facility that states them (no engine model)
PICTURE_SIZE = Bounds(1, MAX_PICTURE_BYTES)


class RequestKind(models.TextChoices):
    NEW_GAME = "new_game", "A new table game"
    NEW_FEATURE = "new_feature", "A new wager or feature of an authorized table game"


class Classification(models.TextChoices):
    VARIATION = "variation", "A variation of an authorized game"
    COMPOSITE = "composite", "A composite of authorized games"
    NEW = "new", "A new game"


class Protection(models.TextChoices):
    ISSUED = "issued", "Issued"
    PENDING = "pending", "Pending"
    NONE = "none", "None"


class NewGameRequest(RegulatedRecord):
    """The request of § 521.4, prepared and signed by a compliance officer."""

    citation: ClassVar[str] = CITATION
    signature_requirements = (
        SignatureRequirement("prepared", Meaning.PREPARED, "Prepared and signed by (compliance officer)",
                             roles=frozenset({Role.COMPLIANCE_OFFICER}), citation=CITATION),
    )

    title = models.CharField(max_length=200, help_text="The name of the game, wager or feature")
    kind = models.CharField(max_length=12, choices=RequestKind.choices, verbose_name="request for")
    classification = models.CharField(max_length=12, choices=Classification.choices, blank=True,
                                      help_text="For a table game: variation, composite or new game (§ 521.4(1)(i))")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, null=True, blank=True, related_name="+",
                             verbose_name="authorized game", help_text="The game a new wager or feature belongs to")
    description = models.TextField(verbose_name="description, rules of play and wagering",
                                   help_text="§ 521.4(1)")
    engine_game = models.CharField(max_length=40, blank=True, verbose_name="game computed by the engine",
                                   help_text="The game of compliance.games.math whose exact figures are filed; "
                                             "empty when the facility states the figures")
    engine_options = models.JSONField(default=dict, blank=True, verbose_name="options applied")
    figures = models.JSONField(default=dict, blank=True, verbose_name="exact figures as prepared",
                               help_text="The engine's analysis when the request was prepared, or the figures of "
                                         "each wager as the facility states them (“stated_by”) (§ 521.4(1)(ii))")
    reason = models.TextField(verbose_name="why it is proposed", help_text="§ 521.4(2)")
    other_jurisdictions = models.JSONField(default=list, blank=True, help_text="§ 521.4(3); empty: none")
    copyright_status = models.CharField(max_length=8, choices=Protection.choices, verbose_name="copyrights")
    copyright_details = models.TextField(blank=True, verbose_name="copyright details")
    trademark_status = models.CharField(max_length=8, choices=Protection.choices, verbose_name="trademarks")
    trademark_details = models.TextField(blank=True, verbose_name="trademark details")
    patent_status = models.CharField(max_length=8, choices=Protection.choices, verbose_name="patents")
    patent_details = models.TextField(blank=True, verbose_name="patent details")

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "new game request"
        constraints = [
            models.CheckConstraint(condition=~Q(title="") & ~Q(description="") & ~Q(reason=""),
                                   name="new_game_request_items_given"),
            # The figures come from the engine's game or are stated by the facility, never both: a request with
            # the facility's figures names no engine game and no options, so no engine figures attach to it.
            models.CheckConstraint(
                condition=(~Q(engine_game="") & ~Q(figures__has_key=STATED_BY))
                | (Q(engine_game="") & Q(figures__has_key=STATED_BY) & Q(engine_options={})),
                name="new_game_request_figures_source"),
            models.CheckConstraint(
                condition=(Q(kind=RequestKind.NEW_GAME) & ~Q(classification="") & Q(game__isnull=True))
                | (Q(kind=RequestKind.NEW_FEATURE) & Q(classification="") & Q(game__isnull=False)),
                name="new_game_request_kind_consistent"),
            *[models.CheckConstraint(condition=Q(**{f"{what}_status": Protection.NONE})
                                     | ~Q(**{f"{what}_details": ""}),
                                     name=f"new_game_request_{what}_detailed")
              for what in ("copyright", "trademark", "patent")],
        ]

    if TYPE_CHECKING:
        pictures: Any

    def __str__(self) -> str:
        return f"{self.title} ({self.get_kind_display().lower()})"

    def get_absolute_url(self) -> str:
        return reverse("newgames:detail", args=[self.pk])

    @property
    def is_game(self) -> bool:
        return self.kind == RequestKind.NEW_GAME

    @property
    def figures_stated(self) -> bool:
        """The figures are the facility's own (the engine does not model the game or wager), not the engine's."""
        return not self.engine_game

    @property
    def jurisdictions_words(self) -> str:
        return jurisdictions_text(list(self.other_jurisdictions))

    def protections(self) -> list[tuple[str, str, str]]:
        """(what, issued / pending / none, details) for copyrights, trademarks and patents (§ 521.4(4))."""
        return [("Copyrights", self.get_copyright_status_display(), self.copyright_details),
                ("Trademarks", self.get_trademark_status_display(), self.trademark_details),
                ("Patents", self.get_patent_status_display(), self.patent_details)]

    @classmethod
    def still_awaited(cls, pending: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """A request waits for its signature only once it has a picture of its equipment (§ 521.4(1)(iv))."""
        return pending.filter(pictures__kind=PictureKind.EQUIPMENT).distinct()

    def picture_facts(self) -> list[list[Any]]:
        """What the signature vouches for of each picture: its kind, name, type, size and SHA-256."""
        return [[p.kind, p.name, p.content_type, p.size, p.sha256]
                for p in RequestPicture.objects.filter(request_id=self.pk).order_by("pk")]

    def signable_content(self) -> dict[str, Any]:
        return super().signable_content() | {"pictures": self.picture_facts()}

    def after_signature(self, signature: Any) -> None:
        """Signed from the common signing page too: a request that cannot be filed is not signed there either
        (the refusal rolls the signature back)."""
        from compliance.newgames.selectors import filing_refusals

        refusals = filing_refusals(self)
        if refusals:
            from django.core.exceptions import ValidationError

            raise ValidationError(refusals)


class PictureKind(models.TextChoices):
    LAYOUT = "layout", "Sketch or picture of the game layout (§ 521.4(1)(iii))"
    EQUIPMENT = "equipment", "Sketch or picture of the equipment (§ 521.4(1)(iv))"


class RequestPicture(AppendOnly, AuditedModel):
    """A sketch or picture of the layout or of the equipment, or a document showing them: never changed or
    removed, and none added once the request is signed."""

    append_only_error = SignedRecordError
    append_only_what = "Pictures of a new game request"
    append_only_hint = "; a request that needs other pictures is prepared anew"
    facility_through = "request"
    signed_part_of = SignedPart("request")

    request = models.ForeignKey(NewGameRequest, on_delete=models.PROTECT, related_name="pictures")
    kind = models.CharField(max_length=10, choices=PictureKind.choices, verbose_name="shows")
    caption = models.CharField(max_length=300, blank=True, help_text="What it shows")
    name = models.CharField(max_length=200, verbose_name="file name")
    content_type = models.CharField(max_length=40)
    size = models.PositiveIntegerField(validators=PICTURE_SIZE.validators, help_text="Bytes")
    sha256 = models.CharField(max_length=64, verbose_name="SHA-256")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["request", "pk"]
        constraints = [
            *PICTURE_SIZE.checks("size"),
            models.CheckConstraint(condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="request_picture_sha256"),
            models.CheckConstraint(condition=Q(content_type__in=["image/png", "image/jpeg", "application/pdf"]),
                                   name="request_picture_content_type"),
        ]

    if TYPE_CHECKING:
        request_id: int
        content: RequestPictureContent

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display().split(' (')[0].lower()})"

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and self.request.is_signed():
            raise SignedRecordError(f"{self.request} is signed: no picture is added to it once signed.")
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("newgames:picture", args=[self.request_id, self.pk])


class RequestPictureContent(AppendOnly):
    """A picture's bytes, kept apart so lists of pictures never load them; checked against its SHA-256."""

    append_only_error = SignedRecordError
    append_only_what = "Pictures of a new game request"

    picture = models.OneToOneField(RequestPicture, on_delete=models.PROTECT, related_name="content")
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"Content of picture {self.picture_id}"

    if TYPE_CHECKING:
        picture_id: int

    def intact(self, sha256: str) -> bool:
        return hashlib.sha256(bytes(self.data)).hexdigest() == sha256
