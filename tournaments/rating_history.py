"""People's ratings replayed from their games (pure: no database).

A pool's ratings are a function of its games in order: each game ranks its players by
place (then dollars) and moves their OpenSkill Plackett-Luce ratings exactly as the bot
ladder's matches do (bots.ratings). The order is the games' (played at, id), so the same
history always gives the same ratings, however and in whatever order it was recorded
(tests/tournaments/test_people_ratings_properties.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from bots.models import DEFAULT_MU, DEFAULT_SIGMA
from bots.ratings import Standing, rate


@dataclass(frozen=True)
class Seat:
    """One player's result in a game: who (the pool's key), place and dollars."""

    key: int
    place: int
    dollars: int


@dataclass(frozen=True)
class PlayedGame:
    game_id: int
    played_at: datetime
    seats: tuple[Seat, ...]

    @property
    def order(self) -> tuple[datetime, int]:
        return (self.played_at, self.game_id)


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0


@dataclass(frozen=True)
class Step:
    """How one game moved one player's rating, and why: the place expected against the
    place taken, at a table of ``table_size``."""

    key: int
    game_id: int
    played_at: datetime
    number: int  # the player's n-th rated game, from 1
    table_size: int
    place: int
    expected_place: float
    before: Rating
    after: Rating


def apply(game: PlayedGame, ratings: Mapping[int, Rating]) -> tuple[dict[int, Rating], list[Step]]:
    """The ratings after one game (only its players change), and each player's step. A
    game with fewer than two players moves nothing."""
    seats = _distinct(game.seats)
    if len(seats) < 2:
        return dict(ratings), []
    index = {n: seat.key for n, seat in enumerate(seats)}
    before = {seat.key: ratings.get(seat.key, Rating()) for seat in seats}
    standings = [
        Standing(key=n, places=seat.place, dollars=seat.dollars, forfeited=False)
        for n, seat in enumerate(seats)
    ]
    changes = rate(standings, {n: (before[k].mu, before[k].sigma) for n, k in index.items()})
    out = dict(ratings)
    steps = []
    for change in changes:
        key = index[change.key]
        after = Rating(change.mu_after, change.sigma_after, before[key].games + 1)
        out[key] = after
        steps.append(
            Step(
                key=key,
                game_id=game.game_id,
                played_at=game.played_at,
                number=after.games,
                table_size=len(seats),
                place=change.place,
                expected_place=change.expected_place,
                before=before[key],
                after=after,
            )
        )
    return out, steps


def replay(games: Iterable[PlayedGame]) -> tuple[dict[int, Rating], list[Step]]:
    """A pool's ratings from nothing, its games taken in their (played at, id) order."""
    ratings: dict[int, Rating] = {}
    steps: list[Step] = []
    for game in sorted(games, key=lambda g: g.order):
        ratings, moved = apply(game, ratings)
        steps.extend(moved)
    return ratings, steps


def _distinct(seats: Iterable[Seat]) -> list[Seat]:
    """A player counted once per game (their first seat), in a stable order."""
    seen: set[int] = set()
    out = []
    for seat in seats:
        if seat.key not in seen:
            seen.add(seat.key)
            out.append(seat)
    return out
