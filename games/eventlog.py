"""Moved: the action log is read and written by the games persistence seam, games.store.

Kept only so that callers outside games (bots, benchmarks, their tests) that import
``games.eventlog`` keep working until they import ``games.store`` instead.
"""

from games.store import (
    ORIGIN_FIELDS,
    Append,
    LogEntry,
    Origin,
    PublicEvents,
    action_json,
    append,
    append_all,
    codes,
    entries,
    initial_state,
    places_set,
    replay_step,
    rounds_append,
    seat_of,
)

__all__ = [
    "ORIGIN_FIELDS",
    "Append",
    "LogEntry",
    "Origin",
    "PublicEvents",
    "action_json",
    "append",
    "append_all",
    "codes",
    "entries",
    "initial_state",
    "places_set",
    "replay_step",
    "rounds_append",
    "seat_of",
]
