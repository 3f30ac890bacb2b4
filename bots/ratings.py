"""Multiplayer ratings with OpenSkill's Plackett-Luce model (pure: no database).

A match ranks its entries by their aggregate over the duplicate deals (lower summed
place first, then more dollars); a forfeited entry (three strikes) is ranked last.
Each change is explained: the expected place before the match, from pairwise win
chances (1 + the chance each opponent finishes above), against the actual place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL_SIGMA = 4.0  # until sigma falls below this the rating is marked provisional
PROVISIONAL_GAMES = 10  # ... or until this many rated games


@dataclass(frozen=True)
class Standing:
    """An entry's aggregate result over a match's games."""

    key: int  # whatever identifies the entry to the caller (a version id)
    places: int  # sum of its places over the games
    dollars: int  # sum of its dollars over the games
    forfeited: bool


@dataclass(frozen=True)
class Change:
    """One entry's rating before and after, with the place it was expected to take."""

    key: int
    place: int
    expected_place: float
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


def ranks(standings: Sequence[Standing]) -> dict[int, int]:
    """Places 1..n (ties share a place): by summed place, then dollars; forfeits last."""

    def order(s: Standing) -> tuple[bool, int, int]:
        return (s.forfeited, s.places, -s.dollars)

    ordered = sorted(standings, key=order)
    out: dict[int, int] = {}
    for i, s in enumerate(ordered):
        previous = ordered[i - 1] if i else None
        out[s.key] = out[previous.key] if previous and order(previous) == order(s) else i + 1
    return out


def expected_places(ratings: Sequence[tuple[float, float]]) -> list[float]:
    """Each entry's expected place: 1 + the chance each other entry finishes above it."""
    players = [MODEL.create_rating([mu, sigma]) for mu, sigma in ratings]
    out = []
    for i, me in enumerate(players):
        above = 0.0
        for j, other in enumerate(players):
            if i != j:
                above += MODEL.predict_win([[other], [me]])[0]
        out.append(1.0 + above)
    return out


def rate(standings: Sequence[Standing], ratings: dict[int, tuple[float, float]]) -> list[Change]:
    """New ratings for a match's entries (ratings: key -> (mu, sigma) before the match)."""
    keys = [s.key for s in standings]
    places = ranks(standings)
    before = [ratings[k] for k in keys]
    expected = expected_places(before)
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in before]
    after = MODEL.rate(teams, ranks=[places[k] for k in keys])
    return [
        Change(
            key=k,
            place=places[k],
            expected_place=expected[i],
            mu_before=before[i][0],
            sigma_before=before[i][1],
            mu_after=after[i][0].mu,
            sigma_after=after[i][0].sigma,
        )
        for i, k in enumerate(keys)
    ]


def provisional(sigma: float, games: int) -> bool:
    """Whether a rating is still provisional (too uncertain, or too few games)."""
    return sigma >= PROVISIONAL_SIGMA or games < PROVISIONAL_GAMES
