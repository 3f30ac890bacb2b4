"""Bots' decision logs beside the replay: games shows them, the bots app keeps them.

A bot's owner sees, at each of its decisions, what it answered, how long it took, any
strike and its debug note (bots.decision_log), and nobody else does. Games may not
import the bots app (dependencies flow ``games <- bots``), so it defines this port and
the bots app provides it when it loads (``bots.apps``); without it there is nothing to
show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Shown:
    """What a viewer may see of a game's decision logs: its lines by replay step (the step
    an answer's move made), and a download per bot of theirs (its name, its address)."""

    by_step: Mapping[int, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    downloads: Sequence[tuple[str, str]] = ()


class Reader(Protocol):
    """What the bots app provides: a viewer's share of a game's decision logs."""

    def shown(self, game_id: int, user: object) -> Shown:
        """The lines of ``user``'s own bots in the game (nothing for anyone else)."""
        ...


_provided: list[Reader] = []


def provide(reader: Reader) -> None:
    """Install the bots app's reader (at most one; a second call replaces it)."""
    _provided[:] = [reader]


def shown(game_id: int, user: object) -> Shown:
    """The viewer's share of the game's decision logs; nothing without a reader."""
    return _provided[0].shown(game_id, user) if _provided else Shown()
