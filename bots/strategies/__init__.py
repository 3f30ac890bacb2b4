"""Built-in strategies: pure decision functions over a SeatView (engine only, no I/O)."""

from .builtin import STRATEGIES, GreedyStrategy, RandomStrategy, SharkStrategy, Strategy, strategy
from .view import SeatView

__all__ = [
    "STRATEGIES",
    "GreedyStrategy",
    "RandomStrategy",
    "SeatView",
    "SharkStrategy",
    "Strategy",
    "strategy",
]
