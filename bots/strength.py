"""The built-ins' measured strength: what the arena and benchmarks/strength.py recorded.

``python -m bots.strategies.arena ... --record`` and ``python benchmarks/strength.py
--record`` write each strength table they print into ``bots/strength.json``, with the
command that reruns it and the day it ran; the ladder page and docs/bot-protocol.md show
them. A table is keyed by its line-up and rules: recording it again replaces it. Pure
Python and no Django, so the arena (in the pure ``bots.strategies``) can write it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

STRENGTH_FILE = Path(__file__).with_name("strength.json")


@dataclass(frozen=True)
class Strength:
    """One strategy's row of a measured table: shares and places with 95% half-widths."""

    name: str
    seats: int
    games: int
    win: float
    win_ci95: float
    place: float
    place_ci95: float
    mu: float
    sigma: float


@dataclass(frozen=True)
class Measurement:
    """One strength table: who sat, under which rules and budget, and how each did."""

    lineup: tuple[str, ...]  # a strategy per seat
    preset: str
    deals: int  # each played once per rotation of the seats
    iterations: int | None  # the search player's budget a decision (None: unbounded
    ms: float | None  # or no search player at the table)
    command: str  # the command that reruns it
    measured_on: str  # ISO date
    rows: tuple[Strength, ...]

    @property
    def games(self) -> int:
        return self.deals * len(self.lineup)


def to_json(measurement: Measurement) -> dict[str, Any]:
    return {
        "lineup": list(measurement.lineup),
        "preset": measurement.preset,
        "deals": measurement.deals,
        "iterations": measurement.iterations,
        "ms": measurement.ms,
        "command": measurement.command,
        "measured_on": measurement.measured_on,
        "rows": [vars(row) for row in measurement.rows],
    }


def from_json(data: dict[str, Any]) -> Measurement:
    return Measurement(
        lineup=tuple(data["lineup"]),
        preset=data["preset"],
        deals=data["deals"],
        iterations=data["iterations"],
        ms=data["ms"],
        command=data["command"],
        measured_on=data["measured_on"],
        rows=tuple(Strength(**row) for row in data["rows"]),
    )


def load(path: Path = STRENGTH_FILE) -> list[Measurement]:
    """Every recorded table, in the file's order (none if there is no file)."""
    if not path.exists():
        return []
    return [from_json(item) for item in json.loads(path.read_text(encoding="utf-8"))]


def record(measurement: Measurement, path: Path = STRENGTH_FILE) -> None:
    """Add ``measurement`` to the file, replacing a table of the same line-up and rules.

    Tables are kept in a stable order (fewer seats first, then by line-up) so that a
    rerun changes only its own lines.
    """
    kept = [
        m for m in load(path) if (m.lineup, m.preset) != (measurement.lineup, measurement.preset)
    ]
    tables = sorted([*kept, measurement], key=lambda m: (len(m.lineup), m.lineup, m.preset))
    text = json.dumps([to_json(m) for m in tables], indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


def measurement(
    lineup: Sequence[str],
    preset: str,
    deals: int,
    budget: tuple[int | None, float | None],
    command: str,
    rows: Sequence[Strength],
    measured_on: date | None = None,
) -> Measurement:
    """A table measured today (or on ``measured_on``); ``budget`` is the search
    player's iterations and milliseconds a decision."""
    return Measurement(
        lineup=tuple(lineup),
        preset=preset,
        deals=deals,
        iterations=budget[0],
        ms=budget[1],
        command=command,
        measured_on=(measured_on or datetime.now(UTC).date()).isoformat(),
        rows=tuple(rows),
    )
