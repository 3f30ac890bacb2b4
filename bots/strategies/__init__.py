"""Built-in strategies: pure decision functions over a seat's view (engine only, no I/O).

The search player's hot modules run compiled when the engine does and its build holds
them fresh (``_loader``); the pure modules are the source.
"""

import games.engine
from games.engine.view import SeatView

from ._loader import compiled_path

_compiled = compiled_path(
    games.engine.__path__[0] if games.engine.ENGINE_BUILD == "compiled" else None
)
if _compiled is not None:  # compiled modules are found first, the rest in this folder
    __path__.insert(0, _compiled)

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
