"""Seating entrants at tables of 2-6 over rounds, so everyone meets as evenly as possible.

Pure: no database. A schedule's tables minimise, in this order (docs/tournaments.md):

- **max meetings**: the most times any pair shares a table;
- **the sum over pairs of meetings squared** (the meetings are fixed by the table sizes,
  so this is least when they are spread most evenly);
- **consecutive repeats**: pairs sharing a table in two rounds in a row.

A ``history`` counts in all three: its meetings in the first two, its last round as the
round before the first. Then **seat positions**: within a table, seats are assigned so
that the seat position anyone has taken most often is taken as rarely as possible, then
with the fewest repeats in all (turn order matters in Cover Your Assets): an exact
assignment per table.

The search seats rounds one at a time (``rounds``), then, for fields up to 150, searches
the whole schedule (``whole``), keeping the round-by-round schedule unless it finds a
better one. Both are seeded and bounded by step counts, never by the clock, so the same
seed always gives the same schedule. For 8-40 entrants over 3-6 rounds the tests check
that no seeded random search given twice the time finds a schedule better on either of
the first two figures.

When the numbers allow an exact design (q² entrants at tables of q, q a prime power up
to 5, at most q + 1 rounds) the rounds are an affine plane's parallel classes and every
pair meets at most once (exactly once over q + 1 rounds). Table sizes are partitioned to
have as many tables of the preferred size as possible, then sizes as close to it.

Modules: ``sizes`` (table sizes), ``history`` (meetings and quality figures), ``rounds``
(the round-by-round search), ``whole`` (the whole-schedule search), ``seats`` (seat
order), ``designs`` (affine planes), ``schedules`` (``schedule``) and ``swiss`` (Swiss
tables)."""

from .designs import affine_rounds
from .history import History, Quality, quality
from .rounds import CONSECUTIVE
from .schedules import Schedule, schedule
from .sizes import table_sizes
from .swiss import swiss_tables

__all__ = [
    "CONSECUTIVE",
    "History",
    "Quality",
    "Schedule",
    "affine_rounds",
    "quality",
    "schedule",
    "swiss_tables",
    "table_sizes",
]
