"""The games persistence seam: every write and every hot read of a game goes through here.

Services decide (policy, transactions, locks); this package writes and reads the rows, in
domain values: engine ``State`` and action codes, ``LogEntry``, model instances. It holds
all of the app's SQL (games.store.statements, table and column names from ``_meta``
through cya_site.rows), the choice between PostgreSQL's statements and their ORM twins
(games.store.vendor, the one place that asks), and the twins themselves. Its parts:

- ``states``: a game's engine state: the process cache, the snapshot, a replay;
- ``log``: reading the action log as one, whichever rows hold it;
- ``writes``: writing an entry with every row it changes, guarded by the game's version;
- ``seats``: the seat, game and snapshot every action and decision read starts from;
- ``tables``: opening, seating, dealing, ending by fiat, a recorded game's rounds.

Import ``games.store`` and use the names below; the parts are its private rooms.
"""

from games.store.log import (
    START_FIELDS,
    LogEntry,
    PublicEvents,
    Start,
    action_json,
    codes,
    entries,
    initial_state,
    public_entry,
    replay_step,
    seat_of,
)
from games.store.seats import seat_and_entry, seat_at, with_snapshot
from games.store.states import (
    cached_version,
    forget,
    load_state,
    replay_one,
    rules_of,
    save_state,
    saved,
    snapshot_bytes,
)
from games.store.tables import (
    deadline_show,
    game_dealt,
    game_open,
    game_saved,
    in_competition_mark,
    rounds_replace,
    seat_free,
    seat_take,
    time_bank,
    time_banks_fill,
)
from games.store.writes import Append, append, append_all, places_set, rounds_append

__all__ = [
    "START_FIELDS",
    "Append",
    "LogEntry",
    "PublicEvents",
    "Start",
    "action_json",
    "append",
    "append_all",
    "cached_version",
    "codes",
    "deadline_show",
    "entries",
    "forget",
    "game_dealt",
    "game_open",
    "game_saved",
    "in_competition_mark",
    "initial_state",
    "load_state",
    "places_set",
    "public_entry",
    "replay_one",
    "replay_step",
    "rounds_append",
    "rounds_replace",
    "rules_of",
    "save_state",
    "saved",
    "seat_and_entry",
    "seat_at",
    "seat_free",
    "seat_of",
    "seat_take",
    "snapshot_bytes",
    "time_bank",
    "time_banks_fill",
    "with_snapshot",
]
