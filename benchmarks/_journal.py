"""The deals of a long measure kept in a file of JSON lines, so that it can stop and go on.

strength.py and search_screen.py play duplicate deals for hours; each keeps every deal in
a journal as it ends, and a later sitting of the same command skips the deals the
journal already holds. A line is one deal of one measure: the measure's key (what makes
its deals comparable: line-up, rules, seed, the search player's budget and settings),
the deal's index, its places and winners, the search's work, and the engine build that
played it (noted, not part of the key: a time-bound search's iterations depend on it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bots.strategies.arena import Deal, Maker
from bots.strategies.search import SearchStrategy
from games.engine import ENGINE_BUILD


def player_settings(make: Maker) -> dict[str, object]:
    """How the search player ``make`` seats plays, besides its budget (a measure's key)."""
    player = make(SearchStrategy.name)
    assert isinstance(player, SearchStrategy)
    return player.settings()


class Journal:
    """The deals of one measure (``key``) played so far, kept in ``path`` if given.

    A file may hold the lines of several measures: only those whose key fields equal
    ``key`` count here.
    """

    def __init__(self, path: Path | None, key: dict[str, Any]) -> None:
        self.path = path
        self.key = json.loads(json.dumps(key))  # as the file holds it (tuples as lists)
        self.deals: dict[int, Deal] = {}
        if path is None or not path.exists():
            return
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if {k: entry.get(k) for k in self.key} == self.key:
                self.deals[entry["deal"]] = Deal(
                    tuple(map(tuple, entry["places"])),
                    tuple(map(tuple, entry["winners"])),
                    entry["searched"],
                    entry["decisions"],
                )

    def add(self, index: int, one: Deal) -> None:
        """Keep deal ``index`` (in memory, and at the end of the file)."""
        self.deals[index] = one
        if self.path is None:
            return
        entry = {**self.key, "deal": index, "places": one.places, "winners": one.winners,
                 "searched": one.searched, "decisions": one.decisions,
                 "engine": ENGINE_BUILD}  # fmt: skip
        with self.path.open("a") as f:
            f.write(json.dumps(entry) + "\n")
