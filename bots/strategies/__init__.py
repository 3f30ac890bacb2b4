"""Built-in strategies: pure decision functions over a SeatView (engine only, no I/O)."""

from .builtin import GreedyStrategy, RandomStrategy, SharkStrategy, Strategy
from .registry import STRATEGIES, strategy
from .search import SearchStrategy
from .view import SeatView

__all__ = [
    "STRATEGIES",
    "GreedyStrategy",
    "RandomStrategy",
    "SearchStrategy",
    "SeatView",
    "SharkStrategy",
    "Strategy",
    "strategy",
]
