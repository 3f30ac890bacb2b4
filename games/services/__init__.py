"""Every change to a game: create, join, leave, start, act, resign, time out, abort, fork.

Services are transaction and policy code: each is one transaction, calls the engine for
every rule (never re-implementing one), and writes and reads rows only through the
persistence seam, games.store. Waiting clients are told after the commit
(``announce``, games.notify). The rooms, by what changes:

- ``tables``: opening a table, seats, dealing (``game_start``), forking an ended game;
- ``acting``: an action for a seat, whole games decided in process (built-in seats);
- ``ending``: resigning, a decision timing out, a staff abort, a shown deadline;
- ``recorded``: games played at real tables, whose rounds are recorded;
- ``progress``: what every applied action shares on its way to the log;
- ``checks`` and ``announce``: the refusals, and the after-commit announcements.

Callers import the services from here (``from games import services``).
"""

from games.services.acting import action_submit, actions_record, actions_record_all
from games.services.ending import deadline_set, decision_timeout, game_abort, game_resign
from games.services.progress import PROGRESS_FIELDS, ActionResult, end_reason
from games.services.recorded import recorded_game_create, recorded_rounds_set
from games.services.tables import (
    ForkOrigin,
    fork_source,
    game_create,
    game_fork,
    game_join,
    game_leave,
    game_rematch,
    game_start,
    games_in_competition,
)

__all__ = [
    "PROGRESS_FIELDS",
    "ActionResult",
    "ForkOrigin",
    "action_submit",
    "actions_record",
    "actions_record_all",
    "deadline_set",
    "decision_timeout",
    "end_reason",
    "fork_source",
    "game_abort",
    "game_create",
    "game_fork",
    "game_join",
    "game_leave",
    "game_rematch",
    "game_resign",
    "game_start",
    "games_in_competition",
    "recorded_game_create",
    "recorded_rounds_set",
]
