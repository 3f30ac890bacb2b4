"""No built-in strategy reads a card its seat could not see (issues 17 and 32).

A strategy decides from a SeatView, which holds only its seat's knowledge
(tests/engine/test_view.py), and the search player samples its worlds from a sampler
that holds no hidden card either (tests/engine/test_redeal_hidden.py). This property
holds the strategies to it from outside: with a fixed RNG seed, a strategy's choice must
be the same when everything hidden from the seat to act is dealt again (other hands, the
deck order, face-down and buried draft-pile cards, tucked cards it never saw). Two
independent re-deals are used: the engine's ``redeal_hidden_from`` and the observe-leak
test's swap-based one.

Every decision kind is reached at every table size on purpose, 2 and 3 seats included:
each (seats, kind) cell plays games steered towards that kind (tests/engine/steering.py),
and hypothesis' ``event`` and ``target`` show what was reached (``pytest
--hypothesis-show-statistics``). The CI profile runs ``max_examples // 6`` games per cell;
``HYPOTHESIS_PROFILE=thorough`` runs about 4,000 games per strategy (docs/testing.md).
"""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import event, given, settings, target
from hypothesis import strategies as st

from bots.strategies import STRATEGIES, decide, strategy
from games.engine import RuleSet, SeatView, State, Worlds, redeal_hidden_from
from tests.engine.hidden import knowledge, redeal_hidden
from tests.engine.steering import CELLS, needs, positions, steered_games
from tests.engine.strategies import Game, seeds

# the search player at a tiny iteration budget: deterministic, and quick enough
CHEAP = {"ismcts": {"iterations": 4, "ms": None}}
POSITIONS = 8  # positions of the steered kind checked per game
REDEALS = 2  # re-deals of each kind per position: a choice near a threshold flips on one
PER_CELL = max(2, settings().max_examples // 6)  # the profile in force (tests/conftest.py)


def choice(name: str, state: State, seat: int, seed: int) -> int:
    """What strategy ``name`` plays for ``seat`` in ``state`` with ``Random(seed)``."""
    player = STRATEGIES[name](**CHEAP.get(name, {}))  # type: ignore[arg-type]
    return decide(player, state, seat, Random(seed))


def check_blind(state: State, seed: int, shuffle: int) -> None:
    """In ``state`` and in re-deals of what the seat to act cannot see, the seat's view
    and its worlds are the same, and so is every built-in's choice.

    The view and the worlds are all a strategy is given, so comparing them finds a leak
    at every position, not only where it flips a choice (a choice near a threshold flips
    on one re-deal in many: issue 32's shark)."""
    seat = state.to_act
    rng = Random(shuffle)
    others = [redeal_hidden(state, seat, rng) for _ in range(REDEALS)]
    others += [redeal_hidden_from(state, seat, shuffle + k) for k in range(REDEALS)]
    view = knowledge(SeatView(state, seat))
    worlds = Worlds(state, seat)
    for other in others:
        assert knowledge(SeatView(other, seat)) == view, "the view holds a hidden card"
        blind = Worlds(other, seat)
        assert all(blind.sample(k) == worlds.sample(k) for k in (shuffle, seed)), "worlds leak"
    for name in sorted(STRATEGIES):
        mine = choice(name, state, seat, seed)
        for other in others:
            assert choice(name, other, seat, seed) == mine, f"{name} reads a hidden card"


def check_game(game: Game, kind: str, seed: int, shuffle: int, most: int = POSITIONS) -> int:
    """Check the first ``most`` positions of ``kind`` in a steered game; how many."""
    checked = 0
    for state in positions(game, kind):
        check_blind(state, seed, shuffle)
        checked += 1
        if checked == most:
            break
    return checked


@pytest.mark.parametrize(("seats", "kind"), CELLS, ids=[f"{n}-seats-{k}" for n, k in CELLS])
@settings(max_examples=PER_CELL)
@given(data=st.data(), seed=seeds, shuffle=st.integers())
def test_a_strategy_chooses_the_same_whatever_is_hidden_from_its_seat(
    seats: int, kind: str, data: st.DataObject, seed: int, shuffle: int
) -> None:
    game = data.draw(steered_games(kind, seats), label="game")
    checked = check_game(game, kind, seed, shuffle)
    event(f"{kind} at {seats} seats: {'reached' if checked else 'not reached'}")
    target(float(checked), label="positions checked")


@pytest.mark.parametrize(("seats", "kind"), CELLS, ids=[f"{n}-seats-{k}" for n, k in CELLS])
def test_every_kind_is_checked_at_every_table_size(seats: int, kind: str) -> None:
    """The steering reaches each cell within a few deals of the plainest rules that have
    it, so every CI run checks every kind at every size, whatever hypothesis draws."""
    presets, required = needs(kind)
    rules = RuleSet.preset((presets or ("2021",))[0], seats=seats).with_options(**required)
    reached = [check_game(Game(rules, deal, deal), kind, deal, deal, most=2) for deal in range(6)]
    assert sum(reached) >= 2


def test_every_built_in_is_covered() -> None:
    """A strategy added to the registry is covered by the properties above."""
    assert {strategy(n).name for n in STRATEGIES} == set(STRATEGIES)
