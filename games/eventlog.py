"""Moved: the action log is read and written by the games persistence seam, games.store.

Kept only so that callers outside games (bots, benchmarks, their tests) that still say
``games.eventlog.<name>`` keep working until they say ``games.store.<name>``: every name
is the seam's own.
"""

from typing import Any

from games import store


def __getattr__(name: str) -> Any:
    return getattr(store, name)
