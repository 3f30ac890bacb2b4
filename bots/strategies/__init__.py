"""Built-in strategies: pure decision functions over a seat's view (engine only, no I/O)."""

from games.engine.view import SeatView

from .builtin import GreedyStrategy, RandomStrategy, SharkStrategy, Strategy
from .registry import STRATEGIES, decide, strategy
from .search import SearchStrategy

__all__ = [
    "STRATEGIES",
    "GreedyStrategy",
    "RandomStrategy",
    "SearchStrategy",
    "SeatView",
    "SharkStrategy",
    "Strategy",
    "decide",
    "strategy",
]
