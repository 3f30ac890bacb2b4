"""A webhook seat's decision, pure (no database): the body it is sent with its budget, and
what its answer comes to. The match runner (bots.runner) and ``manage.py play``
(bots.local) share them, so a bot tried locally is judged as on the ladder.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bots import webhook
from bots.models import Strike
from games import selectors
from games.engine import EngineError, State, action_from_json, apply, default_action


def webhook_decision(
    game_id: int, state: State, *, decision_ms: int, time_bank_ms: int, now: datetime
) -> tuple[dict[str, Any], int]:
    """The body a webhook seat is sent, and its budget: the per-decision limit plus the bank."""
    budget_ms = decision_ms + time_bank_ms
    deadline = now + timedelta(milliseconds=budget_ms)
    payload = selectors.decision_payload(
        game_id, state, deadline=deadline, time_bank_ms=time_bank_ms
    )
    payload["decision_ms"] = decision_ms
    return payload, budget_ms


@dataclass(frozen=True)
class Verdict:
    """What a webhook's answer comes to: the action to apply, and the strike if it was bad."""

    action: int
    fault: str | None = None
    detail: str = ""


def judge(state: State, answer: webhook.Answer) -> Verdict:
    """The bot's action if it is well-formed and legal; else the safe default and why not."""
    if answer.fault is not None or answer.action is None:
        reason = answer.fault or Strike.Reason.MALFORMED
        return Verdict(default_action(state), reason, answer.detail)
    try:
        code = action_from_json(answer.action, state.rules.edition)
        apply(state, code, seat=state.to_act)
    except EngineError as error:  # malformed or illegal: the engine's code says which
        reason = (
            Strike.Reason.MALFORMED if error.code == "malformed_action" else Strike.Reason.ILLEGAL
        )
        return Verdict(default_action(state), reason, f"{error.code}: {error}")
    return Verdict(code)
