"""The bots app's persistence seam: every write and hot read of a match, in domain values.

Claiming a match, reading it locked with its results and writing it finished (places,
ratings and their explanations: ``matches``), reading its games and who decides each
seat (``games``), and the advisory locks that hold work for bots.leases (``locks``): this
package is the only place in bots that talks SQL or asks which database it is on.

On PostgreSQL each of them is one hand-written statement (or two sent in one round trip),
prepared once per connection (cya_site.rows), with table and column names from the
models' ``_meta``. Everywhere else (SQLite for ``make run``) the ORM writes and reads the
same rows. ``sql_path`` is the one choice between the two; tests/bots/test_persistence.py
runs every function down both paths on PostgreSQL and asserts the same rows.
"""

from __future__ import annotations

from django.db import connection

from bots.models import Match

ENDED = (Match.Status.FINISHED, Match.Status.VOIDED)


def sql_path() -> bool:
    """Whether this connection takes the hand-written SQL (PostgreSQL) or the ORM's path:
    the app's one vendor choice (tests switch it to run the ORM's path on PostgreSQL)."""
    return connection.vendor == "postgresql"
