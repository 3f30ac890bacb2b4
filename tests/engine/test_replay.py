"""A game's seed and action log rebuild it exactly (STYLE 3; OS ``Serialize()``).

Logs hold resignations as ``actions.resign(seat)``; ``replay`` applies them with
``resign``. The public history of a round is enough to render it: it is exactly the
events ``apply`` returned since the round started.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    IllegalAction,
    RuleSet,
    action_from_json,
    action_to_json,
    apply,
    legal_actions,
    new_game,
    replay,
    resign,
)
from games.engine import actions as act
from tests.engine.strategies import Game, games, play_to_end, playout


@given(games(resignations=True))
def test_replay_from_seed_and_log_rebuilds_the_final_state(game: Game) -> None:
    """replay(rules, seed, log) == the state the game reached, resignations included."""
    final, log = play_to_end(game)
    assert replay(game.rules, game.seed, log) == final


@given(games(resignations=True), st.integers(min_value=0, max_value=1_000))
def test_replay_of_any_prefix_of_the_log_rebuilds_that_state(game: Game, moment: int) -> None:
    """Stopping anywhere, even mid-challenge or mid-turn, the prefix replays exactly."""
    state, log = play_to_end(game, moment)
    rebuilt = replay(game.rules, game.seed, log)
    assert rebuilt == state
    assert legal_actions(rebuilt) == legal_actions(state)


@given(games(resignations=True))
def test_replay_from_a_json_action_log_rebuilds_the_final_state(game: Game) -> None:
    """The readable log (action JSON dicts, as stored and sent) replays exactly too."""
    final, log = play_to_end(game)
    edition = game.rules.edition
    written = [action_to_json(a, edition) for a in log]
    assert replay(game.rules, game.seed, [action_from_json(a, edition) for a in written]) == final


@given(games(resignations=True))
def test_the_round_history_is_the_events_apply_returned_since_the_round_began(
    game: Game,
) -> None:
    """The public event log renders a replay: a state's history is this round's events."""
    round_events = list(new_game(game.rules, game.seed).history)
    assert round_events[0]["type"] == "round_start"
    for step in playout(game):
        starts = [i for i, e in enumerate(step.events) if e["type"] == "round_start"]
        if starts:
            round_events = list(step.events[starts[-1] :])
        else:
            round_events += step.events
        assert list(step.after.history) == round_events


def test_resigning_mid_challenge_replays_and_keeps_the_challenge_cards() -> None:
    """Regression: a resignation that ends a two-seat game during a challenge left the
    challenge's cards nowhere; the finished table now keeps them where they were."""
    rules = RuleSet.preset("2021", seats=2)
    game = Game(rules, seed=3, choices=3)
    log = []
    for step in playout(game):
        log.append(step.action)
        if step.after.challenge is not None:
            break
    state = replay(rules, game.seed, log)
    assert state.challenge is not None
    over, events = resign(state, state.to_act)
    assert over.over
    assert over.challenge == state.challenge
    assert replay(rules, game.seed, [*log, act.resign(state.to_act)]) == over
    assert events[-1]["type"] == "game_end"


def test_replay_refuses_a_log_with_an_illegal_action() -> None:
    """A tampered log fails loudly with the engine's error, never silently diverges."""
    rules = RuleSet()
    state = new_game(rules, 11)
    bad = next(a for a in range(1 << 20, 1 << 24) if a not in legal_actions(state))
    with pytest.raises(IllegalAction):
        replay(rules, 11, [bad])
    with pytest.raises(IllegalAction):
        replay(rules, 11, [legal_actions(state)[0], act.resign(0), act.resign(0)])
    assert apply(state, legal_actions(state)[0])
