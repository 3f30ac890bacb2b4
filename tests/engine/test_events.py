"""Public events are read-only dicts (``games.engine.events``): one event object may be
shared by every state and game that emits it, so none may change it; a copy may."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import pytest

from games.engine.events import Event

READ_ONLY = "events are read-only and may be shared; copy one to change it"

CHANGES: dict[str, Callable[[Event], Any]] = {
    "item set": lambda e: e.__setitem__("seat", 1),
    "item deleted": lambda e: e.__delitem__("seat"),
    "clear": lambda e: e.clear(),
    "pop": lambda e: e.pop("seat"),
    "popitem": lambda e: e.popitem(),
    "setdefault": lambda e: e.setdefault("card", "x"),
    "update": lambda e: e.update(seat=1),
    "|=": lambda e: e.__ior__({"seat": 1}),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_an_event_refuses_every_change_saying_to_copy_it(change: Callable[[Event], Any]) -> None:
    event = Event({"type": "discard", "seat": 0})
    with pytest.raises(TypeError) as refused:
        change(event)
    assert str(refused.value) == READ_ONLY
    assert event == {"type": "discard", "seat": 0}


def test_a_copy_of_an_event_is_a_plain_dict_that_changes() -> None:
    event = Event({"type": "discard", "seat": 0})
    copy = dict(event)
    copy["seat"] = 1
    assert copy == {"type": "discard", "seat": 1}
    assert event["seat"] == 0


def test_an_event_pickles_as_an_event() -> None:
    event = Event({"type": "discard", "seat": 0})
    again = pickle.loads(pickle.dumps(event))
    assert type(again) is Event
    assert again == event
