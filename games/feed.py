"""What a game's live streams carry: one JSON line per message, built once per change.

A change (a start, an action, a timeout, an abort) is announced after it commits on
Redis channels (games.notify): the game's public channel gets an ``update`` (the game's
status and the public log entries the change wrote), the private channel of the seat
that must act next gets its ``decision``, built by the process that made the change,
which holds the new state already, and when the game has ended every seat's channel
gets its ``end``. A seat's stream listens to its own channel only (unless it asks for
the updates), so a change wakes only the streams that have something to hear. The
stream endpoint (games.api.stream) only forwards these lines, so a push costs the
streaming process no database read and no engine work.

The lines are the same JSON the REST endpoints answer: ``decision`` is the object ``GET
/games/{id}/decision/`` returns in ``decision``, ``game`` is the ``GameStatus`` object of
the action endpoint (tests hold the two renderings equal).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from games.engine import State
from games.models import Game
from games.selectors import decision_payload

# DRF renders datetimes as ISO 8601 with "Z" for UTC; orjson does the same with this flag.
_JSON_OPTIONS = orjson.OPT_UTC_Z


def game_status(game: Game) -> dict[str, Any]:
    """The game's status object (``GameStatus`` in the OpenAPI schema)."""
    return {
        "id": game.pk,
        "status": game.status,
        "version": game.version,
        "round_number": game.round_number,
        "to_act": game.to_act,
        "decision_kind": game.decision_kind,
        "deadline": game.deadline,
        "winners": game.winners,
        "end_reason": game.end_reason,
    }


def line(message: dict[str, Any]) -> bytes:
    """One message as a line of NDJSON."""
    return orjson.dumps(message, option=_JSON_OPTIONS) + b"\n"


def update_line(game: Game, entries: Iterable[dict[str, Any]] = ()) -> bytes:
    """The public ``update``: the game's status, and the log entries the change wrote."""
    return line({"type": "update", "game": game_status(game), "entries": list(entries)})


def end_line(game: Game) -> bytes:
    """The ``end`` of a finished or aborted game: its final status."""
    return line({"type": "end", "game": game_status(game)})


def decision_line(
    game_id: int, state: State, *, deadline: datetime | None, time_bank_ms: int | None
) -> bytes:
    """The private ``decision`` for the seat to act in ``state``."""
    return _decision(decision_payload(game_id, state, deadline=deadline, time_bank_ms=time_bank_ms))


def _decision(payload: dict[str, Any]) -> bytes:
    return line({"type": "decision", "decision": payload})


class Lines(NamedTuple):
    """Everything one change announces, built in one go (games.services.announce)."""

    update: bytes
    # the seat to act and its ``decision`` line, and the decision object in that line (the
    # action endpoint answers it too when the seat that acted must act again)
    decision: tuple[int, bytes] | None
    payload: dict[str, Any] | None
    # the ended game's seat count and its ``end`` line
    end: tuple[int, bytes] | None


def lines(
    game: Game, state: State | None, bank: int | None, entries: Iterable[dict[str, Any]]
) -> Lines:
    """The lines of a change that left ``game`` as it is and the game in ``state`` (None:
    no decision to announce), ``bank`` being the time bank of the seat to act."""
    decision = payload = end = None
    if state is not None and game.status == Game.Status.ACTIVE and game.to_act is not None:
        payload = decision_payload(game.pk, state, deadline=game.deadline, time_bank_ms=bank)
        decision = (game.to_act, _decision(payload))
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        end = (game.seat_count, end_line(game))
    return Lines(update_line(game, entries), decision, payload, end)
