"""The built-in strategies by name: what bots, games, the arena and ``manage.py play`` seat."""

from __future__ import annotations

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
