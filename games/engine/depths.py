"""Where a challenge is aimed (RULES #11, #28, #35): the top set of a stack, the second,
or a set drafted (2.8). A module of its own below ``state`` and ``shared_events``, which
both name them."""

from __future__ import annotations

from typing import Final

# Final: mypyc (make engine) inlines these instead of looking them up at each use
TOP: Final = 0
SECOND: Final = 1
DRAFTED: Final = 2
DEPTH_NAMES = ("top", "second", "draft")
