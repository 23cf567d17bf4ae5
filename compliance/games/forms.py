"""The options of a game as a form: a choice for options with fixed choices, text for odds the facility sets."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.games.math.core import GameMath

__all__ = ["OptionsForm"]


class OptionsForm(forms.Form):
    def __init__(self, *args: Any, game: GameMath, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        for spec in game.options:
            label = f"{spec.label} (§ {spec.clause})"
            if spec.choices:
                self.fields[spec.name] = forms.ChoiceField(label=label, choices=[(c, c) for c in spec.choices],
                                                           initial=spec.default, help_text=spec.help)
            else:
                self.fields[spec.name] = forms.CharField(label=label, max_length=40, required=False,
                                                         initial=spec.default, help_text=spec.help)

    def chosen(self) -> dict[str, str]:
        """The options as typed (blank: the regulation's default)."""
        data = self.cleaned_data if self.is_bound else {}
        return {spec.name: (str(data.get(spec.name) or "").strip() or spec.default) for spec in self.game.options}
