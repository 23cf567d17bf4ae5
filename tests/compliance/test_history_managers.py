"""``Model.history``'s manager class built once a model (compliance.history_managers), answering as the library's."""

from __future__ import annotations

from typing import Any

import pytest
from simple_history.manager import HistoryDescriptor

from compliance import history_managers
from compliance.models import GamingTable
from equipment.models import DiceSet


def test_the_class_is_built_once_and_is_the_librarys_shape() -> None:
    assert HistoryDescriptor.__get__ is history_managers._get  # installed at start (compliance.apps)
    first, second = DiceSet.history, DiceSet.history
    assert first is not second  # a manager per access, as before
    assert type(first) is type(second)  # its class built once (the library built one per access)
    history_managers.uninstall()
    try:
        library = DiceSet.history
        assert type(DiceSet.history) is not type(library)  # the library's: a new class each time
    finally:
        history_managers.install()
    assert type(first).__name__ == type(library).__name__
    assert set(dir(type(first))) == set(dir(type(library)))  # the same queryset methods (as_of, latest_of_each...)
    assert (first.model, first.instance) == (library.model, library.instance)


def test_each_descriptor_keeps_its_own_class() -> None:
    dice, table = DiceSet.history, GamingTable.history  # one class a descriptor: each bound to its own model
    assert dice.model._meta.label == "equipment.HistoricalDiceSet"
    assert table.model._meta.label == "compliance.HistoricalGamingTable"


@pytest.mark.django_db
def test_an_instances_history_is_its_own(facility: Any) -> None:
    from compliance.models import Game

    game = Game.objects.order_by("pk").first()
    one = GamingTable.objects.create(facility=facility, number="H-1", game=game, pit="Pit 1")
    other = GamingTable.objects.create(facility=facility, number="H-2", game=game, pit="Pit 1")
    one.pit = "Pit 2"
    one.save()
    assert one.history.instance == one
    assert [h.history_type for h in one.history.order_by("history_id")] == ["+", "~"]
    assert [h.pit for h in one.history.order_by("history_id")] == ["Pit 1", "Pit 2"]
    assert other.history.count() == 1
    assert GamingTable.history.filter(id__in=[one.pk, other.pk]).count() == 3
    assert one.history.most_recent().pit == "Pit 2"  # the instance-bound manager's own method
