"""No module grows past 400 lines (STYLE.md 2: past about 400 lines, a module becomes a
package split by subdomain; issue 16 item 5).

Every tracked .py file outside tests/ and migrations/ is counted. The modules still being
split are named in ``STILL_SPLITTING`` with the reason they are there; the list may only
shrink: a module on it that fits again, or no longer exists, fails until it is taken off.
"""

from __future__ import annotations

import subprocess

from tests.conftest import ROOT

MAX_LINES = 400

STILL_SPLITTING: dict[str, str] = {}


def _line_counts() -> dict[str, int]:
    """Lines of every tracked module outside tests/ and migrations/."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    paths = [p for p in listed if p and not p.startswith("tests/") and "/migrations/" not in p]
    return {p: len((ROOT / p).read_bytes().splitlines()) for p in paths if (ROOT / p).exists()}


def test_no_module_is_longer_than_400_lines_except_those_still_being_split() -> None:
    counts = _line_counts()

    too_long = {p: n for p, n in counts.items() if n > MAX_LINES and p not in STILL_SPLITTING}

    assert too_long == {}, f"split these by subject (STYLE.md 2): {too_long}"


def test_the_list_of_modules_still_being_split_only_shrinks() -> None:
    counts = _line_counts()

    done = sorted(p for p in STILL_SPLITTING if counts.get(p, 0) <= MAX_LINES)

    assert done == [], f"these fit in {MAX_LINES} lines now (or are gone): take them off"
