"""The built-in strategies by name, and the one way to ask one for a move.

``decide`` is what bots, games, the arena, benchmarks and ``manage.py play`` call: the
strategy gets the seat's view (games.engine.view), never the state.
"""

from __future__ import annotations

from random import Random

from games.engine import State
from games.engine.view import SeatView

from .builtin import GreedyStrategy, RandomStrategy, SharkStrategy, Strategy
from .search import SearchStrategy

STRATEGIES: dict[str, type[RandomStrategy] | type[GreedyStrategy] | type[SearchStrategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "shark": SharkStrategy,
    "ismcts": SearchStrategy,
}


def strategy(name: str) -> Strategy:
    """A fresh instance of a built-in strategy by name (KeyError if there is none)."""
    return STRATEGIES[name]()


def decide(player: Strategy, state: State, seat: int, rng: Random) -> int:
    """``player``'s action for ``seat``, chosen from what that seat may know."""
    return player.choose(SeatView(state, seat, worlds=player.searches), rng)
