"""The walk of a request through the platform's own modules: which files it enters, in order.

``walk(call)`` runs ``call`` under a profiler hook and records every call that crosses from
one of the repository's files into another (a visit). Calls within a file, into libraries
(Django, DRF, psycopg) and back out of them are not visits; a library calling back into the
repository (DRF into a view) is a visit from the nearest repository frame below it. Once
the walk enters the engine (``games/engine/``), the engine's own calls are not followed:
the engine is one stop, however it is built inside.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = (str(ROOT / ".venv"), str(ROOT / "tests"))
ENGINE = "games/engine/"


def _ours(frame: FrameType) -> str | None:
    """The frame's file relative to the repository, if it is the platform's code."""
    filename = frame.f_code.co_filename
    if not filename.startswith(str(ROOT)) or filename.startswith(SKIPPED):
        return None
    return filename[len(str(ROOT)) + 1 :]


def _caller(frame: FrameType) -> str | None:
    """The file of the nearest platform frame below this one."""
    below = frame.f_back
    while below is not None:
        ours = _ours(below)
        if ours is not None:
            return ours
        below = below.f_back
    return None


def stops(call: Callable[[], Any], start: str) -> list[str]:
    """The walk of ``call`` from the first visit to ``start`` on, as stops: a visit to the
    file the walk is already in (a second helper of the same module called in a row) is
    the same stop, and all of the engine is one stop, ``games/engine/``."""
    visits = walk(call)
    walked: list[str] = []
    for here in visits[visits.index(start) :]:
        here = ENGINE if here.startswith(ENGINE) else here
        if not walked or walked[-1] != here:
            walked.append(here)
    return walked


def walk(call: Callable[[], Any]) -> list[str]:
    """The files ``call`` visits, in order, each visit once."""
    visits: list[str] = []

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        here = _ours(frame)
        if here is None:
            return
        came_from = _caller(frame)
        if came_from == here or (came_from or "").startswith(ENGINE):
            return
        visits.append(here)

    sys.setprofile(hook)
    try:
        call()
    finally:
        sys.setprofile(None)
    return visits
