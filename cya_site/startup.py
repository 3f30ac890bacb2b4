"""What a server process does once its application is loaded, before serving.

``gc.freeze()``: a loaded Django process holds ~120,000 long-lived objects (modules,
classes, URL patterns, the engine's tables), and every full collection of the cyclic
garbage collector walks all of them: ~60-140 ms here, a pause that lands on whichever
request triggers it and dominates tail latency. Freezing them after start-up moves them
out of the collector's sight, so a full collection only walks what requests allocated
(Instagram's recipe; https://docs.python.org/3/library/gc.html#gc.freeze). URL patterns
are loaded first, which imports every view, so the first request does not pay for it and
its objects are frozen too.
"""

from __future__ import annotations

import gc

from django.urls import get_resolver


def ready_to_serve() -> None:
    """Load every view, then freeze everything loaded so far out of the collector's way."""
    get_resolver().url_patterns  # noqa: B018  (the property imports every URLconf and view)
    gc.freeze()
