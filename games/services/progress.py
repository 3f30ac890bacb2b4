"""Logging an applied action with every row it changes: the one path of an action, a
resignation and a timeout to the log (games.store.append), and what it sets on the game
row (the pending decision, its deadline, the end)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games import store
from games.engine import State, action_to_json
from games.engine.state import DECISION_NAMES
from games.models import Event, Game, Seat
from games.services import announce, checks

# The columns an action can change: saving only these keeps a submission's UPDATE small
# (the rules and the other fixed columns are never rewritten).
PROGRESS_FIELDS = (
    "version",
    "to_act",
    "decision_kind",
    "round_number",
    "deadline",
    "status",
    "finished_at",
    "winners",
    "end_reason",
)


@dataclass(frozen=True)
class ActionResult:
    """What a submission did: the game after it, the acting seat, the log entry and its
    public form, the decision that seat must make now (None: it is not to act), and
    whether it was a retry of an earlier one."""

    game: Game
    seat: Seat
    event: Event
    entry: dict[str, Any]
    decision: dict[str, Any] | None
    replayed: bool = False


def decide_for(
    game: Game,
    seat: Seat,
    code: int,
    *,
    actor: User | None,
    origin: Event.Origin,
    seat_fields: Sequence[str],
) -> ActionResult:
    """Apply ``code`` for ``seat`` at the game's current state and log it (``record``):
    what a resignation and a timeout share. The caller holds the game row's lock, so the
    state is the one the code was chosen for, and has set ``seat_fields`` on ``seat``."""
    state = store.load_state(game)
    new_state, events = store.replay_step(state, code)  # a resignation is the engine's too
    return record(
        game,
        state,
        new_state,
        events,
        seat=seat,
        actor=actor,
        action=action_to_json(code, state.rules.edition),
        code=code,
        origin=origin,
        seat_fields=seat_fields,
    )


def record(
    game: Game,
    state: State,
    new_state: State,
    events: store.PublicEvents,
    *,
    seat: Seat,
    actor: User | None,
    action: dict[str, Any],
    code: int,
    key: str | None = None,
    origin: Event.Origin = Event.Origin.API,
    seat_fields: Sequence[str] = (),
) -> ActionResult:
    """Log an applied action with every derived row, in one guarded write: the game row,
    its snapshot, round scores and final places, and the acting ``seat``'s
    ``seat_fields`` (set by the caller) and time bank. Raises ``stale_version`` or
    ``game_over`` (nothing written) if the game is no longer at ``state``'s version."""
    now = timezone.now()
    if _spend_time(game, seat, state, now):
        seat_fields = (*seat_fields, "time_bank_ms")
    event = Event(
        game=game,
        seq=new_state.version,
        seat=seat.number,
        actor=actor,
        action=action,
        action_code=code,
        public_events=list(events),
        idempotency_key=key or "",
        origin=origin,
        created_at=now,
    )
    rounds = [public for public in events if public["type"] == "round_end"]
    ranking = None
    for public in events:
        if public["type"] == "game_end":
            end_fields(game, public, now)
            ranking = public["ranking"]
    bank = None if new_state.over else set_decision(game, new_state, now, seat)
    game.version = new_state.version
    written = store.append(
        game,
        state.version,
        event,
        fields=PROGRESS_FIELDS,
        state=new_state,
        publics=rounds,
        ranking=ranking,
        seat=(seat, seat_fields) if seat_fields else None,
    )
    if not written:
        raise checks.moved(game)
    entry = store.public_entry(event)
    decision = announce.after_commit(game, new_state, bank, [entry])
    again = decision is not None and decision["seat"] == seat.number
    return ActionResult(game, seat, event, entry, decision if again else None)


def _spend_time(game: Game, seat: Seat, state: State, now: datetime) -> bool:
    """Charge time beyond the per-decision limit to the seat's time bank; whether it did."""
    if game.decision_seconds is None or game.deadline is None or state.to_act != seat.number:
        return False
    started = game.deadline - timedelta(
        seconds=game.decision_seconds, milliseconds=seat.time_bank_ms or 0
    )
    over_ms = int((now - started).total_seconds() * 1000) - game.decision_seconds * 1000
    if over_ms > 0 and seat.time_bank_ms:
        seat.time_bank_ms = max(0, seat.time_bank_ms - over_ms)
        return True
    return False


def set_decision(game: Game, state: State, now: datetime, acted: Seat | None = None) -> int | None:
    """Show the pending decision on the game row; returns the time bank of the seat to
    act. The seat that just ``acted``, if it is to act again, has its bank in hand (as
    this action charged it, not yet written)."""
    game.to_act = state.to_act
    game.decision_kind = DECISION_NAMES[state.kind]
    game.round_number = state.round
    game.deadline = None
    if game.decision_seconds is None and game.time_bank_seconds is None:
        return None  # untimed: no seat has a bank
    if acted is not None and acted.number == state.to_act:
        bank = acted.time_bank_ms
    else:
        bank = store.time_bank(game, state.to_act)
    if game.decision_seconds is not None:
        game.deadline = now + timedelta(seconds=game.decision_seconds, milliseconds=bank or 0)
    return bank


def end_fields(game: Game, public: dict[str, Any], now: datetime) -> None:
    """The game row's side of a game_end event (the seats' side is its ranking, written
    with it by games.store)."""
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.winners = public["winners"]
    game.end_reason = end_reason(public)
    game.to_act = None
    game.decision_kind = ""
    game.deadline = None


def end_reason(public: dict[str, Any]) -> str:
    """A finished game's ``end_reason`` from its game_end event: ``resignations`` when
    seats resigned and one seat was left to win, else ``finished``."""
    resigned = any(row["resigned"] for row in public["ranking"])
    return "resignations" if resigned and len(public["winners"]) == 1 else "finished"
