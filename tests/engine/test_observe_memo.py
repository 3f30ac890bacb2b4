"""``observe`` and ``State.history`` reuse earlier work (per-set views, the parent's history).

Those memos are invisible: every observation must equal the one built from scratch, from
a state rebuilt by ``state_from_json`` (fresh objects, one history chunk), whatever order
states are observed in, old ones after new ones included.
"""

from __future__ import annotations

from hypothesis import given

from games.engine import RuleSet, State, observe, state_from_json, state_to_json
from tests.engine.strategies import Game, games, playout


def fresh(state: State) -> State:
    """The same state rebuilt from JSON: it shares no object a memo could key on."""
    return state_from_json(state_to_json(state))


def seats_of(state: State) -> list[int | None]:
    return [*range(state.table.seats), None]


@given(games(resignations=True))
def test_observing_every_decision_matches_a_fresh_observation(game: Game) -> None:
    kept: list[State] = []
    for n, step in enumerate(playout(game, limit=400)):
        state = step.after
        seat = state.to_act if not state.over else None
        assert observe(state, seat) == observe(fresh(state), seat)
        if n % 37 == 0:
            kept.append(state)
    for state in reversed(kept):  # old states, read after newer ones
        rebuilt = fresh(state)
        assert state.history == rebuilt.history
        for seat in seats_of(state):
            assert observe(state, seat) == observe(rebuilt, seat)


def test_history_of_a_state_read_again_after_its_children() -> None:
    game = Game(rules=RuleSet.preset("2021"), seed=3, choices=4)
    steps = list(playout(game, limit=60))
    for step in steps:
        _ = step.after.history
    for step in steps:  # parents whose memo was superseded by their children's
        assert step.before.history == fresh(step.before).history
