"""No built-in strategy reads a card its seat could not see (issue 17).

For random reachable positions of every rule set, a strategy's choice with a fixed RNG
seed must be identical when everything hidden from the seat to act is dealt again: other
hands, the deck order, face-down and buried draft-pile cards, tucked cards it never saw.
Two independent re-deals are used: the engine's ``redeal_hidden_from`` (the search
player's own sampler) and the observe-leak test's swap-based one.
"""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.strategies import STRATEGIES, SeatView, strategy
from games.engine import State, redeal_hidden_from
from tests.engine.hidden import leak_rules, redeal_hidden
from tests.engine.strategies import Game, games, seeds, states, strides

# the search player gets a tiny iteration budget: deterministic, and quick enough
CHEAP = {"ismcts": {"iterations": 6, "ms": None}}


def choice(name: str, state: State, seat: int, seed: int) -> int:
    """What strategy ``name`` plays for ``seat`` in ``state`` with ``Random(seed)``."""
    player = STRATEGIES[name](**CHEAP.get(name, {}))  # type: ignore[arg-type]
    return player.choose(SeatView(state, seat), Random(seed))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@settings(max_examples=25, deadline=None)
@given(game=games(leak_rules), stride=strides, seed=seeds, shuffle=st.integers())
def test_a_strategy_chooses_the_same_whatever_is_hidden_from_its_seat(
    name: str, game: Game, stride: int, seed: int, shuffle: int
) -> None:
    rng = Random(shuffle)
    checked = 0
    for n, state in enumerate(states(game)):
        if n % (stride * 4) or state.over:
            continue
        seat = state.to_act
        mine = choice(name, state, seat, seed)
        assert choice(name, redeal_hidden_from(state, seat, shuffle), seat, seed) == mine
        assert choice(name, redeal_hidden(state, seat, rng), seat, seed) == mine
        checked += 1
    assert checked  # the deal itself (n == 0) is always checked


def test_every_built_in_is_covered() -> None:
    """A strategy added to the registry is covered by the property above."""
    assert {strategy(n).name for n in STRATEGIES} == set(STRATEGIES)
