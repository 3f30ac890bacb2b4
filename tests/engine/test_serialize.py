"""States, rule sets and events go to JSON and back exactly (STYLE 3; SC RoundtripTest)."""

from __future__ import annotations

import json
from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    EngineError,
    RuleSet,
    State,
    apply,
    legal_actions,
    new_game,
    state_from_json,
    state_to_json,
)
from tests.engine.strategies import Game, choose, games, playout, rule_sets, states, strides


def through_json(state: State) -> State:
    """The state after a trip through JSON text."""
    return state_from_json(json.loads(json.dumps(state_to_json(state))))


@given(games(resignations=True), strides)
def test_state_json_round_trip_is_exact_at_every_step(game: Game, stride: int) -> None:
    """state_from_json(state_to_json(s)) == s, and writes the same JSON again."""
    for n, state in enumerate(states(game)):
        if n % stride and not state.over:
            continue
        data = state_to_json(state)
        restored = state_from_json(json.loads(json.dumps(data)))
        assert restored == state
        assert state_to_json(restored) == data


@given(games(resignations=True), st.integers(min_value=0, max_value=800), st.integers())
def test_a_restored_state_plays_on_exactly_like_the_original(
    game: Game, moment: int, choices: int
) -> None:
    """From a state restored from JSON, every legal action leads to the same state and
    events, and a random continuation agrees step by step to the end of the game."""
    state = new_game(game.rules, game.seed)
    for step in playout(game, moment):
        state = step.after
    twin = through_json(state)
    for action in legal_actions(state):
        assert apply(twin, action) == apply(state, action)
    rng = Random(choices)
    while not state.over:
        assert legal_actions(twin) == legal_actions(state)
        action = choose(state, rng)
        state, events = apply(state, action)
        twin, twin_events = apply(twin, action)
        assert twin == state
        assert twin_events == events
    assert twin.winners == state.winners


@given(games(), strides)
def test_events_are_plain_json(game: Game, stride: int) -> None:
    """Every public event survives json.dumps/loads unchanged (events render replays)."""
    for n, step in enumerate(playout(game)):
        if n % stride == 0:
            events: list[dict[str, Any]] = [dict(e) for e in step.events]
            assert json.loads(json.dumps(events)) == events


@given(rule_sets())
def test_rule_set_json_round_trip_is_exact(rules: RuleSet) -> None:
    """RuleSet.from_json(to_json) gives the same frozen value, through JSON text."""
    assert RuleSet.from_json(json.loads(json.dumps(rules.to_json()))) == rules


def test_state_from_json_refuses_an_unknown_format() -> None:
    """A state written by another format version is refused, not misread."""
    data = state_to_json(new_game(RuleSet(), 1))
    data["format"] = 99
    with pytest.raises(EngineError) as info:
        state_from_json(data)
    assert info.value.code == "invalid_state"
    assert "99" in str(info.value)


def test_equal_states_compare_equal_and_different_ones_do_not() -> None:
    """State equality is by value: the same deal twice is equal, another seed is not."""
    rules = RuleSet()
    assert new_game(rules, 5) == new_game(rules, 5)
    assert new_game(rules, 5) != new_game(rules, 6)
    assert through_json(new_game(rules, 5)) == new_game(rules, 5)
