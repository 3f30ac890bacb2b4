"""Public events: read-only dicts.

An event is a value, so two equal events may be one object: the common ones (discards,
draws, pairs, conceding) are built once per rule set and shared by every state and game
that emits them (``shared_events``), which keeps ``apply`` from allocating them. ``Event``
is a ``dict`` (JSON-ready as is) that refuses to be changed; copy it (``dict(event)``) to
edit one.
"""

from __future__ import annotations

from typing import Any, NoReturn


class Event(dict[str, Any]):
    """A public event: a read-only dict."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("events are read-only and may be shared; copy one to change it")

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __reduce__(self) -> tuple[type[Event], tuple[dict[str, Any]]]:
        return (Event, (dict(self),))
