"""The games part of a person's data download (accounts.belongings): every seat they
took, with the game's result, and the games they opened. Seats keep the deleted account
(renamed by accounts.lifecycle), so games need no departure step."""

from __future__ import annotations

from typing import Any

from accounts import belongings
from accounts.models import User
from games.models import Game, Seat


def _when(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def games_export(user: User) -> list[dict[str, Any]]:
    """Each game the person sat at, oldest first."""
    seats = Seat.objects.filter(user=user).select_related("game").order_by("game__created_at")
    return [
        {
            "game": seat.game_id,
            "mode": seat.game.mode,
            "status": seat.game.status,
            "seats": seat.game.seat_count,
            "seat": seat.number,
            "created_at": _when(seat.game.created_at),
            "finished_at": _when(seat.game.finished_at),
            "place": seat.place,
            "tally": seat.tally,
            "rounds_won": seat.round_wins,
            "won": seat.is_winner,
            "resigned_at": _when(seat.resigned_at),
        }
        for seat in seats
    ]


def games_opened_export(user: User) -> list[int]:
    """The ids of the games the person opened."""
    return list(Game.objects.filter(created_by=user).order_by("id").values_list("id", flat=True))


def register() -> None:
    """Add the games sections to the data download."""
    belongings.register_export("games", games_export)
    belongings.register_export("games_opened", games_opened_export)
