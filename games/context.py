"""What every page knows of the signed-in person's games: the "your turn" strip
(games/_your_turn.html in the base template), read only when a page draws it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from accounts.models import User
from games import selectors

SHOWN = 5  # games the strip names; it counts them all


def your_turn(request: HttpRequest) -> dict[str, Any]:
    """``your_turn``: the games whose decision is the person's (none for visitors and bots)."""
    user = getattr(request, "user", None)
    if not isinstance(user, User) or user.is_bot:
        return {"your_turn": ()}
    return {"your_turn": SimpleLazyObject(lambda: list(selectors.games_waiting_on(user)))}
