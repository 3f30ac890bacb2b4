"""Seating entrants at tables of 2-6 over rounds, so everyone meets as evenly as possible.

Pure: no database. The objective, minimised round by round with a seeded local search:

- **repeats**: a pair that has shared a table m times costs ``2m + 1`` more to seat together
  again (so the total grows as the sum of m² over pairs);
- **consecutive repeats**: ``CONSECUTIVE`` more if the pair also shared a table last round;
- **seat positions**: within a table, seats are assigned so that the seat position anyone
  has taken most often is taken as rarely as possible, then with the fewest repeats in
  all (turn order matters in Cover Your Assets): an exact assignment per table.

The search is seeded and bounded by step counts, never by the clock, so the same seed
always gives the same schedule.

When repeats cannot be avoided (12 entrants at tables of 4, say, repeat from round 2 by
pigeonhole), the search minimises the sum of squared meetings; that can mean a pair
meeting a third time rather than two pairs meeting a second time, and ``quality`` shows
the organiser exactly what the schedule does. When the numbers allow an exact design
(q² entrants at tables of q, q a prime power up to 5, at most q + 1 rounds) the rounds
are an affine plane's parallel classes and every pair meets at most once (exactly once
over q + 1 rounds). Table sizes are partitioned to have as many tables of the preferred
size as possible, then sizes as close to it.

Modules: ``sizes`` (table sizes), ``history`` (meetings and quality figures), ``rounds``
(the round-by-round search), ``seats`` (seat order), ``designs`` (affine planes),
``schedules`` (``schedule``) and ``swiss`` (Swiss tables).
"""

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
