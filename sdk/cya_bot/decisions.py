"""Asking a bot for one decision, as the ladder asks it, and judging the answer.

The decision object is the engine's (``games.engine.decision_object``, the platform's
own), wrapped as a webhook request is (``protocol_version``, ``type``, ``decision_ms``).
The answer goes through the engine too: an action that does not parse or is not legal is
a fault, and the engine's ``default_action`` is played in its place, as on the ladder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from games.engine import (
    EngineError,
    State,
    action_from_json,
    apply,
    decision_object,
    default_action,
)

from .webhook import PROTOCOL_VERSION, Decide, Decision, answer_of

# The ladder's time control (docs/bot-protocol.md "Time control"): 1 s a decision plus a
# 15 s bank per game. Local games never cut a bot off; they count the slow answers.
DECISION_MS = 1000
TIME_BANK_MS = 15_000

ERROR = "error"  # decide raised, or the webhook server failed to answer
MALFORMED = "malformed"  # the answer is not an action the engine can read
ILLEGAL = "illegal"  # a well-formed action that is not legal now


def decision_for(state: State, game: int, *, decision_ms: int, time_bank_ms: int) -> Decision:
    """The body the platform would send the seat to act, deadline counted from now."""
    deadline = datetime.now(UTC) + timedelta(milliseconds=decision_ms + time_bank_ms)
    body = decision_object(
        state, game=game, deadline=deadline.isoformat(), time_bank_ms=time_bank_ms
    )
    return {
        "protocol_version": PROTOCOL_VERSION,
        "type": "decision",
        **body,
        "decision_ms": decision_ms,
    }


@dataclass(frozen=True)
class Choice:
    """What came of asking: the action code to play, and the bot's answer or its fault."""

    code: int  # the bot's action, or the engine's default after a fault
    action: dict[str, Any] | None  # the action as the bot answered it (None: no action)
    fault: str = ""  # "", ERROR, MALFORMED or ILLEGAL
    detail: str = ""
    debug: str = ""  # the bot's debug note, as the platform keeps it
    elapsed_ms: float = 0.0


def ask(
    decide: Decide,
    state: State,
    game: int,
    *,
    decision_ms: int = DECISION_MS,
    time_bank_ms: int = TIME_BANK_MS,
) -> Choice:
    """Ask ``decide`` for the pending decision of ``state`` and judge the answer."""
    decision = decision_for(state, game, decision_ms=decision_ms, time_bank_ms=time_bank_ms)
    started = time.perf_counter()
    try:
        answer = answer_of(decide(decision))
    except TypeError as error:
        return _fault(state, None, MALFORMED, str(error), started)
    except Exception as error:
        return _fault(state, None, ERROR, f"{type(error).__name__}: {error}", started)
    elapsed_ms = (time.perf_counter() - started) * 1000
    action = answer["action"]
    try:
        code = action_from_json(action, state.rules.edition)
        apply(state, code, seat=state.to_act)
    except EngineError as error:
        kind = MALFORMED if error.code == "malformed_action" else ILLEGAL
        return _fault(state, action, kind, f"{error.code}: {error}", started)
    return Choice(code, action, debug=answer.get("debug", ""), elapsed_ms=elapsed_ms)


def _fault(
    state: State, action: dict[str, Any] | None, fault: str, detail: str, started: float
) -> Choice:
    elapsed_ms = (time.perf_counter() - started) * 1000
    return Choice(default_action(state), action, fault, detail, elapsed_ms=elapsed_ms)
