"""Forms of the request to offer a new table game or feature: what the compliance officer types. The services
hold the rules of § 521.4 and say what is missing."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from compliance.games.forms import OptionsForm
from compliance.games.math.core import GameMath
from compliance.newgames.models import Classification, PictureKind, Protection, RequestKind
from compliance.newgames.rules import MAX_PICTURE_BYTES, MAX_PICTURES
from compliance.newgames.selectors import games_for_features
from compliance.newgames.services import MAX_CAPTION, MAX_DETAILS, MAX_LONG_TEXT
from compliance.newgames.stated import MAX_METHOD, MAX_WAGER_NAME, MAX_WAGERS

__all__ = [
    "OPTION_PREFIX",
    "WAGER_PREFIX",
    "PictureForm",
    "RequestForm",
    "SignForm",
    "StatedRequestForm",
    "stated_wagers_typed",
    "wager_rows_in",
]

OPTION_PREFIX = "option-"
_BLANK = [("", "—")]


def _long(label: str, help_text: str, *, rows: int = 6, required: bool = True, limit: int = MAX_LONG_TEXT) -> Any:
    return forms.CharField(label=label, help_text=help_text, required=required, max_length=limit,
                           widget=forms.Textarea(attrs={"rows": rows}))


def _protection(plural: str) -> tuple[Any, Any]:
    status = forms.ChoiceField(label=f"Covered by {plural}?", choices=_BLANK + list(Protection.choices),
                               help_text="The game, its name or any of its equipment: issued, pending or none "
                                         "(§ 521.4(4))")
    details = _long(f"{plural.capitalize()}: details", "What is covered, the number or application, the holder "
                    "(required unless none)", rows=2, required=False, limit=MAX_DETAILS)
    return status, details


class RequestForm(forms.Form):
    """Every item of § 521.4, and the options of the engine's game whose exact figures are filed."""

    title = forms.CharField(max_length=200, help_text="The name of the game, wager or feature")
    kind = forms.ChoiceField(label="The request is for", choices=RequestKind.choices, widget=forms.RadioSelect)
    classification = forms.ChoiceField(
        label="For a new table game, it is", choices=_BLANK + list(Classification.choices), required=False,
        help_text="§ 521.4(1)(i); leave empty for a new wager or feature")
    game: Any = forms.ModelChoiceField(label="Authorized game of the new wager or feature", queryset=None, required=False,
                                  help_text="Leave empty for a new table game")
    description = _long("Description, rules of play and wagering",
                        "A detailed description of the game or feature with the rules of play and wagering that would "
                        "be used (§ 521.4(1))", rows=12)
    reason = _long("Why it is proposed", "§ 521.4(2)")
    other_jurisdictions = _long("Other gaming jurisdictions where it is offered now",
                                "One a line, or “none” (§ 521.4(3))", rows=3, limit=30_000)
    copyright_status, copyright_details = _protection("copyrights")
    trademark_status, trademark_details = _protection("trademarks")
    patent_status, patent_details = _protection("patents")

    def __init__(self, *args: Any, engine: GameMath | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.engine = engine
        self.fields["game"].queryset = games_for_features()  # type: ignore[attr-defined]
        if engine is None:
            return
        # The options of the engine's game, as the game catalogue asks them, after the description.
        fields = list(self.fields.items())
        at = [name for name, _ in fields].index("reason")
        options = [(OPTION_PREFIX + name, field) for name, field in OptionsForm(game=engine).fields.items()]
        self.fields = dict(fields[:at] + options + fields[at:])

    def options(self) -> dict[str, str]:
        """The options as typed (blank: the regulation's default); read from the data even when a field is
        refused, so the service says in words what is wrong with it."""
        if self.engine is None:
            return {}
        source: Any = self.data if self.is_bound else {}
        return {spec.name: str(source.get(OPTION_PREFIX + spec.name) or "").strip() or spec.default
                for spec in self.engine.options}

    def service_kwargs(self) -> dict[str, Any]:
        data = {name: value for name, value in self.cleaned_data.items() if not name.startswith(OPTION_PREFIX)}
        return data | {"engine_game": self.engine.slug if self.engine else "", "engine_options": self.options()}


WAGER_PREFIX = "wager-"
WAGER_FIELDS = ("name", "payout_odds", "probability", "true_odds", "house_edge", "not_simple", "method")
DEFAULT_WAGER_ROWS = 3
_WAGER_KEY = re.compile(r"wager-([0-9]{1,3})-[a-z_]+")


def wager_rows_in(data: Any) -> int:
    """How many rows of wagers the posted data holds (its highest row number), between 1 and the most allowed."""
    numbers = [int(found.group(1)) for key in (data or {}) if (found := _WAGER_KEY.fullmatch(str(key)))]
    return max(1, min(max(numbers, default=DEFAULT_WAGER_ROWS), MAX_WAGERS))


def stated_wagers_typed(data: Any, rows: int) -> list[dict[str, Any]]:
    """Each row of wagers as typed, as the service takes them (``simple`` unless "not a simple wager" is ticked)."""
    def typed(n: int, name: str) -> str:
        return str(data.get(f"{WAGER_PREFIX}{n}-{name}") or "")

    return [{"name": typed(n, "name"), "payout_odds": typed(n, "payout_odds"), "probability": typed(n, "probability"),
             "true_odds": typed(n, "true_odds"), "house_edge": typed(n, "house_edge"),
             "simple": typed(n, "not_simple").strip().lower() not in ("on", "true", "1"),
             "method": typed(n, "method")} for n in range(1, rows + 1)]


def _wager_fields(n: int) -> list[tuple[str, Any]]:
    def text(label: str, limit: int, help_text: str, placeholder: str) -> Any:
        return forms.CharField(label=f"Wager {n}: {label}", max_length=limit, required=False, help_text=help_text,
                               widget=forms.TextInput(attrs={"placeholder": placeholder}))

    return [(f"{WAGER_PREFIX}{n}-{name}", field) for name, field in (
        ("name", text("name", MAX_WAGER_NAME, "As the layout or the rules name it", placeholder="Straight up")),
        ("payout_odds", text("payout odds", 400, "“a to b”, never “for”; a wager that is not simple may list "
                             "several, separated by “;”", placeholder="35 to 1")),
        ("probability", text("probability of winning", 80, "An exact fraction p/q", placeholder="1/38")),
        ("true_odds", text("true odds", 60, "Against winning, “a to b”", placeholder="37 to 1")),
        ("house_edge", text("house advantage", 80, "An exact fraction p/q (0 for none); the percentage is computed "
                            "from it", placeholder="1/19")),
        ("not_simple", forms.BooleanField(
            label=f"Wager {n}: not a simple wager", required=False,
            help_text="Tick when it has several payouts, a push or a loss of part of the wager: its figures are filed "
                      "as stated and not checked")),
        ("method", forms.CharField(label=f"Wager {n}: method of computation", max_length=MAX_METHOD, required=False,
                                   help_text="In words, e.g. “enumeration of the 38 pockets”",
                                   widget=forms.Textarea(attrs={"rows": 2}))),
    )]


class StatedRequestForm(RequestForm):
    """Every item of § 521.4 for a game or wager the engine does not model: the facility states the figures of
    each wager (§ 521.4(1)(ii)) exactly, with its method of computation; the service reads and checks them."""

    def __init__(self, *args: Any, rows: int = DEFAULT_WAGER_ROWS, **kwargs: Any) -> None:
        super().__init__(*args, engine=None, **kwargs)
        self.rows = max(1, min(rows, MAX_WAGERS))
        fields = list(self.fields.items())
        at = [name for name, _ in fields].index("reason")
        wagers = [pair for n in range(1, self.rows + 1) for pair in _wager_fields(n)]
        self.fields = dict(fields[:at] + wagers + fields[at:])

    def head_fields(self) -> list[Any]:
        """The fields shown before the wagers (the title to the description)."""
        names = list(self.fields)
        return [self[name] for name in names[:names.index(f"{WAGER_PREFIX}1-name")]]

    def tail_fields(self) -> list[Any]:
        """The fields shown after the wagers (the reason to the patents)."""
        names = list(self.fields)
        return [self[name] for name in names[names.index("reason"):]]

    def wager_rows(self) -> list[list[Any]]:
        return [[self[f"{WAGER_PREFIX}{n}-{name}"] for name in WAGER_FIELDS] for n in range(1, self.rows + 1)]

    def service_kwargs(self) -> dict[str, Any]:
        data = {name: value for name, value in self.cleaned_data.items() if not name.startswith(WAGER_PREFIX)}
        return data | {"stated_wagers": stated_wagers_typed(self.cleaned_data, self.rows)}


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".png,.jpg,.jpeg,.pdf"}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class PictureForm(forms.Form):
    kind = forms.ChoiceField(label="The files show", choices=PictureKind.choices, widget=forms.RadioSelect)
    caption = forms.CharField(max_length=MAX_CAPTION, required=False, help_text="What they show, e.g. “dice shaker”")
    upload = MultipleFileField(
        label="Files", help_text=f"PNG, JPEG or PDF; at most 5 MB ({MAX_PICTURE_BYTES:,} bytes) each and "
                                 f"{MAX_PICTURES} a request. A picture added stays with the request.")

    def clean_upload(self) -> list[tuple[str, bytes]]:
        """Each file's name and bytes; one too big is refused here without reading it (the service checks each
        file's size and content again)."""
        uploads = self.cleaned_data["upload"]
        if len(uploads) > MAX_PICTURES:
            raise forms.ValidationError(f"Choose at most {MAX_PICTURES} files.")
        too_big = [f"{u.name} is {u.size:,} bytes: a file is at most 5 MB ({MAX_PICTURE_BYTES:,} bytes). Nothing "
                   f"was saved." for u in uploads if u.size > MAX_PICTURE_BYTES]
        if too_big:
            raise forms.ValidationError(too_big)
        return [(u.name, u.read()) for u in uploads]


class SignForm(forms.Form):
    password = forms.CharField(
        label="Your password", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="Entering your password is your electronic signature on this request.")
