"""The time-control rules, pure, so matches and ``manage.py play`` keep the same clock.

A seat has a per-decision limit and a time bank for the game: an answer's time beyond the
limit is charged to the bank, a timeout empties it, and the third strike of a game puts
the seat on autopilot for the rest of it.
"""

from __future__ import annotations

from bots.models import Strike

MAX_STRIKES = 3


def bank_after_answer(time_bank_ms: int, decision_ms: int, elapsed_ms: int) -> int:
    """The time bank after an answer: time beyond the per-decision limit is charged to it."""
    return max(0, time_bank_ms - max(0, elapsed_ms - decision_ms))


def bank_after_strike(time_bank_ms: int, reason: str) -> int:
    """The time bank after a strike: a timeout has used all of it."""
    return 0 if reason == Strike.Reason.TIMEOUT else time_bank_ms
