"""What the other apps hold of a person: their part of the data download, and what they
do when the person deletes the account.

accounts sits below every app and imports none of them, so each app registers its part
here from its ``AppConfig.ready`` (games: seats; bots: bot entries; tournaments: rosters,
competitors and score records). The account's own fields are accounts.lifecycle's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accounts.models import User

ExportSection = Callable[[User], Any]
DepartureStep = Callable[[User, str], None]

_sections: dict[str, ExportSection] = {}
_departures: dict[str, DepartureStep] = {}


def register_export(name: str, section: ExportSection) -> None:
    """``section(user)`` is the JSON value under ``name`` in the user's data download."""
    _sections[name] = section


def register_departure(name: str, step: DepartureStep) -> None:
    """``step(user, shown_as)`` runs inside the deletion's transaction, before the account
    is emptied: it renames what shows the person's name to ``shown_as``."""
    _departures[name] = step


def export_sections(user: User) -> dict[str, Any]:
    """Every app's section of ``user``'s data download, by name, in a stable order."""
    return {name: _sections[name](user) for name in sorted(_sections)}


def departure_steps() -> list[DepartureStep]:
    """Every app's deletion step, in a stable order."""
    return [_departures[name] for name in sorted(_departures)]
