"""The rules of Cover Your Assets: pure Python, deterministic, no Django, no I/O.

Public API::

    rules = RuleSet.preset("2021", seats=4)
    state = new_game(rules, seed=7)
    while not state.over:
        action = legal_actions(state)[0]
        state, events = apply(state, action)

Rounds played with real cards are checked and scored by ``recorded`` (``check_round``,
``outcome``). See docs/engine.md, and RULES.md for every rule decision the engine implements.

The modules below are the source. ``make engine`` compiles them with mypyc; ``_loader``
decides, before any of them is imported, whether that build is loaded instead
(``ENGINE_BUILD`` says which runs; ``CYA_ENGINE=pure`` forces the source).
"""

from ._loader import compiled_path

_compiled = compiled_path()
if _compiled is not None:  # compiled modules are found first, the rest in this folder
    __path__.insert(0, _compiled)
ENGINE_BUILD = "pure" if _compiled is None else "compiled"

from .actions import describe
from .actions import from_json as action_from_json
from .actions import to_json as action_to_json
from .advanced import Advanced
from .errors import (
    EngineError,
    GameOver,
    IllegalAction,
    InvalidRules,
    MalformedAction,
    NotYourTurn,
    ScoreError,
)
from .fork import fork, redeal_hidden_from
from .legal import legal_actions
from .observe import decision_object, observe
from .play import Decision, apply, decision, default_action, new_game, replay, resign, step
from .rules import PRESETS, RuleSet
from .serialize import state_from_json, state_to_json
from .state import State
from .view import SeatView
from .worlds import Worlds

__all__ = [
    "ENGINE_BUILD",
    "PRESETS",
    "Advanced",
    "Decision",
    "EngineError",
    "GameOver",
    "IllegalAction",
    "InvalidRules",
    "MalformedAction",
    "NotYourTurn",
    "RuleSet",
    "ScoreError",
    "SeatView",
    "State",
    "Worlds",
    "action_from_json",
    "action_to_json",
    "apply",
    "decision",
    "decision_object",
    "default_action",
    "describe",
    "fork",
    "legal_actions",
    "new_game",
    "observe",
    "redeal_hidden_from",
    "replay",
    "resign",
    "state_from_json",
    "state_to_json",
    "step",
]
