"""Bot seats: games knows that some seats are played by bots, never how they play.

A table may seat bots beside people (``Game.bot_seats``). Who a bot is (a built-in
strategy, a validated version) and how its moves are chosen belong to the bots app,
which games may not import (dependencies flow ``games <- bots``). So games defines
this port and the bots app provides it when it loads (``bots.apps``):

- ``seat`` puts bots in seats of an open table, or refuses (a DomainError);
- ``turn`` is told, once a change has committed, that a bot seat is to act at a version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured

from accounts.models import User
from games.models import Game


@dataclass(frozen=True)
class BotChoice:
    """A seat to fill with a bot: a built-in ``strategy`` by name, or a bot ``version`` id."""

    seat: int
    strategy: str = ""
    version: int | None = None


class Players(Protocol):
    """What the bots app provides for tables with bot seats."""

    def seat(self, *, game: Game, choices: Sequence[BotChoice], by: User) -> None:
        """Seat these bots at the open ``game`` (its row locked), or refuse."""
        ...

    def turn(self, game_id: int, version: int) -> None:
        """A bot seat must act at ``version`` (called after the commit): have it play."""
        ...


_provided: list[Players] = []


def provide(players: Players) -> None:
    """Install the bots app's players (at most one; a second call replaces it)."""
    _provided[:] = [players]


def players() -> Players:
    """The installed players; a site without the bots app cannot seat bots."""
    if not _provided:
        raise ImproperlyConfigured("No bot players installed: is the bots app loaded?")
    return _provided[0]
