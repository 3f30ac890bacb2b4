"""Actions' JSON form (the API and bot protocol): exact round trips, precise refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    MalformedAction,
    action_from_json,
    action_to_json,
    describe,
    legal_actions,
)
from games.engine import actions as act
from games.engine.actions import BOTTOM_TO_TOP, TOP_TO_BOTTOM
from games.engine.cards import EDITIONS, GOLD, MOVE, PENNY_JAR, SILVER, SWAP
from tests.engine.strategies import Game, games, playout, strides

# One action of every type, with every shape of its fields.
EXAMPLES = {
    "pair": [act.pair(0, 0), act.pair(3, SILVER), act.pair(9, GOLD), act.pair(2, PENNY_JAR)],
    "pair_discard": [act.pair_discard(4), act.pair_discard(GOLD)],
    "discard": [act.discard(0), act.discard(SILVER), act.discard(SWAP), act.discard(MOVE)],
    "challenge": [
        act.challenge(1, (5,)),
        act.challenge(5, (GOLD,)),
        act.challenge(2, (PENNY_JAR,), depth=1),
        act.challenge(3, (6, SILVER), depth=1),
        act.challenge(7, (6, 6), depth=1),
    ],
    "draft": [act.draft(0, (0,)), act.draft(GOLD, (0, 2)), act.draft(7, (0, 1, 2))],
    "improve": [act.improve(8)],
    "swap": [act.swap(0), act.swap(5)],
    "move": [act.move(2, TOP_TO_BOTTOM), act.move(0, BOTTOM_TO_TOP)],
    "end_turn": [act.END_TURN_ACTION],
    "play": [act.play((1,)), act.play((PENNY_JAR,)), act.play((1, GOLD)), act.play((SILVER, GOLD))],
    "concede": [act.CONCEDE_ACTION],
    "pass": [act.PASS_ACTION],
    "choose_move": [act.choose_move(TOP_TO_BOTTOM), act.choose_move(BOTTOM_TO_TOP)],
    "resign": [act.resign(0), act.resign(5)],
}
EXAMPLE_IDS = [(name, a) for name, actions in EXAMPLES.items() for a in actions]
PLAYABLE = ["2021", "de2023"]  # the editions with every card (2011 has no Penny Jar or Swap)


def test_every_action_type_has_examples() -> None:
    """The table above covers every type the codec knows."""
    assert sorted(EXAMPLES) == sorted(act.TYPE_NAMES)


@pytest.mark.parametrize("edition", PLAYABLE)
@pytest.mark.parametrize(("name", "action"), EXAMPLE_IDS)
def test_every_action_type_round_trips_through_its_json_form(
    edition: str, name: str, action: int
) -> None:
    """from_json(to_json(a)) == a, through JSON text, in each edition's card keys."""
    data = action_to_json(action, edition)
    assert data["type"] == name
    assert action_from_json(json.loads(json.dumps(data)), edition) == action
    assert describe(action, edition).startswith(name)


def test_cards_are_written_with_the_edition_s_own_keys() -> None:
    """RULES section 1: the same id is a different card name in each edition."""
    action = act.pair(9, GOLD)
    assert action_to_json(action, "2021")["cards"] == ["cabin", "gold"]
    assert action_to_json(action, "2011")["cards"] == ["home", "gold"]
    assert action_to_json(action, "de2023")["cards"] == ["eigenheim", "gold"]
    assert action_from_json({"type": "pair", "cards": ["gold", "home"]}, "2011") == action


def test_optional_challenge_depth_defaults_to_the_top_set() -> None:
    """A challenge without "depth" aims at the top set (RULES #11)."""
    data = {"type": "challenge", "target": 2, "cards": ["gold"]}
    assert action_from_json(data, "2021") == act.challenge(2, (GOLD,))


@given(games(), strides)
def test_every_action_met_in_play_round_trips_and_is_described(game: Game, stride: int) -> None:
    """Every legal action of random playouts (and each resignation) survives JSON."""
    edition = game.rules.edition
    for n, step in enumerate(playout(game)):
        if n % stride:
            continue
        for action in (*legal_actions(step.before), step.action):
            data = json.loads(json.dumps(action_to_json(action, edition)))
            assert action_from_json(data, edition) == action
            assert describe(action, edition).split()[0] == data["type"]


MALFORMED: list[tuple[Any, str, str]] = [
    ("pair", "2021", "an action must be a JSON object"),
    (["pair"], "2021", "an action must be a JSON object"),
    ({}, "2021", "type must be one of"),
    ({"type": "fold"}, "2021", "type must be one of"),
    ({"type": 3}, "2021", "type must be one of"),
    ({"type": "discard"}, "2021", "a discard action needs 'card'"),
    ({"type": "challenge", "cards": ["gold"]}, "2021", "a challenge action needs 'target'"),
    ({"type": "end_turn", "card": "gold"}, "2021", "unknown field 'card' for a end_turn"),
    ({"type": "discard", "card": "gold", "seat": 1}, "2021", "unknown field 'seat'"),
    ({"type": "discard", "card": "home"}, "2021", "the 2021 edition has no card 'home'"),
    ({"type": "discard", "card": "cabin"}, "2011", "the 2011 edition has no card 'cabin'"),
    ({"type": "discard", "card": "penny_jar"}, "2011", "the 2011 edition has no card 'penny_jar'"),
    ({"type": "discard", "card": 11}, "2021", "a card must be given by its key"),
    ({"type": "pair", "cards": ["piano"]}, "2021", "cards must be a list of 2 to 2 card keys"),
    ({"type": "pair", "cards": "piano,gold"}, "2021", "cards must be a list"),
    ({"type": "play", "cards": []}, "2021", "cards must be a list of 1 to 2 card keys"),
    ({"type": "play", "cards": ["gold"] * 3}, "2021", "cards must be a list of 1 to 2"),
    ({"type": "swap", "target": -1}, "2021", "a seat must be an integer from 0 to 7"),
    ({"type": "swap", "target": 8}, "2021", "a seat must be an integer from 0 to 7"),
    ({"type": "swap", "target": True}, "2021", "a seat must be an integer"),
    ({"type": "swap", "target": "1"}, "2021", "a seat must be an integer"),
    ({"type": "resign", "seat": 1.0}, "2021", "a seat must be an integer"),
    ({"type": "move", "target": 1, "direction": "up"}, "2021", "direction must be"),
    ({"type": "choose_move", "direction": 0}, "2021", "direction must be"),
    (
        {"type": "challenge", "target": 1, "cards": ["gold"], "depth": "bottom"},
        "2021",
        "depth must be 'top' or 'second'",
    ),
    ({"type": "draft", "card": "gold", "piles": []}, "2021", "piles must be a non-empty list"),
    ({"type": "draft", "card": "gold", "piles": 1}, "2021", "piles must be a non-empty list"),
    (
        {"type": "draft", "card": "gold", "piles": [1, 1]},
        "2021",
        "piles must be a non-empty list of distinct pile numbers",
    ),
    ({"type": "draft", "card": "gold", "piles": [3]}, "2021", "each pile must be 0, 1 or 2"),
    ({"type": "draft", "card": "gold", "piles": [True]}, "2021", "each pile must be 0, 1 or 2"),
]


@pytest.mark.parametrize(("data", "edition", "message"), MALFORMED)
def test_malformed_json_actions_are_refused_naming_the_problem(
    data: Any, edition: str, message: str
) -> None:
    """Each malformed action gets malformed_action and a message saying what is wrong."""
    with pytest.raises(MalformedAction) as info:
        action_from_json(data, edition)
    assert info.value.code == "malformed_action"
    assert str(info.value).startswith(message)


def test_an_unknown_type_is_refused_naming_every_type() -> None:
    with pytest.raises(MalformedAction) as info:
        action_from_json({"type": "fold"}, "2021")
    assert str(info.value) == "type must be one of " + ", ".join(act.TYPE_NAMES)
    assert "pair_discard, discard" in str(info.value)


def test_an_edition_is_given_by_its_key_or_itself() -> None:
    data = {"type": "discard", "card": "gold"}
    assert action_from_json(data, EDITIONS["2021"]) == action_from_json(data, "2021")
    assert action_from_json(data, EDITIONS["2021"]) == act.discard(GOLD)


@given(st.dictionaries(st.sampled_from(["type", "card", "cards", "target", "seat"]), st.none()))
def test_json_actions_with_null_fields_are_malformed_never_a_crash(data: dict[str, Any]) -> None:
    """Nulls anywhere are refused as malformed, whatever the fields."""
    with pytest.raises(MalformedAction):
        action_from_json(data, "2021")


@given(
    st.fixed_dictionaries(
        {"type": st.sampled_from(act.TYPE_NAMES)},
        optional={
            "card": st.sampled_from(EDITIONS["2021"].keys) | st.integers() | st.none(),
            "cards": st.lists(st.sampled_from(EDITIONS["2021"].keys), max_size=3),
            "target": st.integers(-2, 9),
            "seat": st.integers(-2, 9),
            "depth": st.sampled_from(["top", "second", "middle"]),
            "piles": st.lists(st.integers(-1, 3), max_size=4),
            "direction": st.sampled_from(["top_to_bottom", "bottom_to_top", "sideways"]),
        },
    )
)
def test_any_json_action_parses_or_is_malformed_and_parsed_ones_round_trip(
    data: dict[str, Any],
) -> None:
    """from_json never fails any other way; what it accepts writes back to itself."""
    try:
        action = action_from_json(data, "2021")
    except MalformedAction:
        return
    again = action_to_json(action, "2021")
    assert action_from_json(again, "2021") == action
    assert again["type"] == data["type"]
