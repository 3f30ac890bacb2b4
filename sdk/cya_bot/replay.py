"""Replaying a finished platform game through your bot (``cya-bot replay``).

The game's record comes from the platform's public API: ``GET /api/v1/games/{id}/replay/``
(seed, rules and every logged action) and ``GET /api/v1/games/{id}/`` (who sat where).
The engine deals the game again from its seed and replays the log action by action; at
each decision of the seats you chose it builds the very decision object the platform
sent (``decisions.decision_for``) and asks your bot, then plays the logged action,
whatever your bot chose, so the game stays the one that was played. The report lists
every decision where your bot now chooses differently, or fails to answer.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import httpx

from games.engine import (
    EngineError,
    RuleSet,
    State,
    action_from_json,
    decision,
    new_game,
    step,
)
from games.engine.actions import RESIGN, action_type

from .decisions import ask
from .webhook import Decide


class ReplayError(Exception):
    """The game cannot be replayed: the message says why (no such game, not ended, ...)."""


@dataclass(frozen=True)
class Record:
    """A finished game as the API returns it: its replay and its seats' players."""

    game: int
    seed: int
    rules: dict[str, Any]
    log: list[dict[str, Any]]
    players: dict[int, str]  # seat -> player name ("" for an empty seat)


@dataclass(frozen=True)
class Step:
    """One decision of a replayed seat: what was played then, and what your bot says now."""

    seq: int  # the log entry (the action that took the game to version ``seq``)
    version: int  # the decision's version (seq - 1)
    seat: int
    kind: str
    origin: str  # who chose the logged action: webhook, api, fallback, builtin, ...
    played: dict[str, Any]
    chosen: dict[str, Any] | None  # your bot's action (None if it gave none)
    differs: bool  # your bot's action is not the one played (a fault always differs)
    fault: str = ""
    detail: str = ""


@dataclass
class Report:
    """The replay of one game for some seats: every decision asked, in order."""

    record: Record
    seats: tuple[int, ...]
    steps: list[Step] = field(default_factory=list)

    @property
    def differences(self) -> list[Step]:
        """The decisions where your bot's choice differs from the one played."""
        return [s for s in self.steps if s.differs]


def fetch(base_url: str, game_id: int, timeout: float = 30.0) -> Record:
    """The record of an ended game from the platform at ``base_url``; ReplayError if none."""
    root = base_url.rstrip("/") + f"/api/v1/games/{game_id}/"
    with httpx.Client(timeout=timeout, headers={"Accept": "application/json"}) as client:
        replay = _get(client, root + "replay/")
        game = _get(client, root)
    if replay.get("fork") is not None:
        raise ReplayError(f"game {game_id} is a fork of another game: replay the original")
    players = {
        s["number"]: (s.get("player") or {}).get("username", "") for s in game.get("seats", [])
    }
    return Record(game_id, replay["seed"], replay["rules"], replay["log"], players)


def _get(client: httpx.Client, url: str) -> dict[str, Any]:
    try:
        response = client.get(url)
    except httpx.HTTPError as error:
        raise ReplayError(f"cannot reach {url}: {error}") from None
    try:
        body = response.json()
    except ValueError:
        raise ReplayError(f"{url} answered HTTP {response.status_code}, not JSON") from None
    if response.status_code != 200:
        message = body.get("message") if isinstance(body, dict) else None
        raise ReplayError(f"{url} answered HTTP {response.status_code}: {message or body}")
    if not isinstance(body, dict):
        raise ReplayError(f"{url} answered {type(body).__name__}, not an object")
    return body


def seats_of(record: Record, seats: Collection[int], players: Collection[str]) -> tuple[int, ...]:
    """The seats to replay: those given, those of the named players; all if neither."""
    count = RuleSet.from_json(record.rules).seats
    for seat in seats:
        if not 0 <= seat < count:
            raise ReplayError(f"game {record.game} has seats 0 to {count - 1}, not {seat}")
    chosen = set(seats)
    for name in players:
        found = {s for s, p in record.players.items() if p == name}
        if not found:
            sitting = ", ".join(f"{s}: {p or '-'}" for s, p in sorted(record.players.items()))
            raise ReplayError(f"{name!r} has no seat in game {record.game} ({sitting})")
        chosen |= found
    return tuple(sorted(chosen)) if chosen else tuple(range(count))


def replay(record: Record, bot: Decide, seats: Collection[int]) -> Report:
    """Deal the game again, ask ``bot`` at every decision of ``seats``, play the log."""
    rules = RuleSet.from_json(record.rules)
    report = Report(record, tuple(sorted(seats)))
    state: State = new_game(rules, record.seed)
    for entry in record.log:
        if entry["seq"] == 0:  # the deal: new_game has dealt it
            continue
        code = _logged(state, entry)
        if state.to_act in seats and action_type(code) != RESIGN and not state.over:
            report.steps.append(_compare(bot, state, record.game, entry, code))
        state = step(state, code)[0]
    return report


def _logged(state: State, entry: dict[str, Any]) -> int:
    """The logged action's code, checked against the state: a log this engine cannot
    follow (a platform newer than this SDK) is a ReplayError, not a wrong report."""
    try:
        code = action_from_json(entry["action"], state.rules.edition)
        step(state, code)
    except EngineError as error:
        raise ReplayError(
            f"the action at step {entry['seq']} does not apply here ({error.code}: {error});"
            " is this SDK older than the platform?"
        ) from None
    return code


def _compare(bot: Decide, state: State, game: int, entry: dict[str, Any], played: int) -> Step:
    choice = ask(bot, state, game)
    pending = decision(state)
    return Step(
        seq=entry["seq"],
        version=state.version,
        seat=state.to_act,
        kind=pending.kind if pending is not None else "",
        origin=entry.get("origin", ""),
        played=entry["action"],
        chosen=choice.action,
        differs=bool(choice.fault) or choice.code != played,
        fault=choice.fault,
        detail=choice.detail,
    )
