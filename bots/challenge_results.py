"""A challenge's results, as its page and its API show them: a row per deal (each
entrant's place and dollars in it, and its games' replays once played), and the
standing over the deals played so far.

A deal's place is its match's (bots.services.match_finish: by summed place over the
deal's rotations, then dollars); the standing ranks the entrants the same way over every
finished deal (``bots.ratings.ranks``; a seat on autopilot in one deal costs that
deal's places, not the whole challenge), with each one's mean place and its 95% interval
over deals (``bots.strategies.duplicate.interval``). A voided deal (a platform fault)
counts for no one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from bots import ratings
from bots.models import BotVersion, Challenge, ChallengeDeal, Match, MatchEntry, MatchGame
from bots.persistence import ENDED
from bots.strategies.duplicate import interval
from games.models import Game

SCHEDULED, RUNNING, FINISHED = "scheduled", "running", "finished"


@dataclass(frozen=True)
class Cell:
    """One entrant in one deal: its place (1 = first) and dollars, once the deal ended."""

    place: int | None
    dollars: int | None
    forfeited: bool


@dataclass(frozen=True)
class GameLink:
    """One game of a deal (rotation r seats entrant p at seat (p + r) mod n)."""

    rotation: int
    game_id: int
    finished: bool


@dataclass(frozen=True)
class DealRow:
    """A deal: its match, status, each entrant's cell (by position) and its games."""

    number: int
    match_id: int
    status: str
    cells: list[Cell]
    games: list[GameLink]


@dataclass(frozen=True)
class EntrantRow:
    """An entrant's standing over the finished deals."""

    position: int
    version: BotVersion
    place: int | None
    deals_played: int
    first_places: int
    mean_place: float | None
    mean_place_half: float | None  # the 95% interval's half-width; None below two deals
    dollars: int


@dataclass(frozen=True)
class Results:
    """Everything a challenge's page shows."""

    challenge: Challenge
    status: str
    entrants: list[EntrantRow]
    deals: list[DealRow]

    @property
    def standing(self) -> list[EntrantRow]:
        """The entrants best first (those without a place yet by position)."""
        return sorted(self.entrants, key=lambda e: (e.place is None, e.place or 0, e.position))

    @property
    def deals_finished(self) -> int:
        """Deals played to their end."""
        return sum(d.status == Match.Status.FINISHED for d in self.deals)


def challenges_with_deals(challenges: QuerySet[Challenge]) -> QuerySet[Challenge]:
    """Challenges with what their results need, in five queries however many there are:
    the bot and owner, the deals' matches, their entries' versions and their games."""
    games = MatchGame.objects.select_related("game").only(
        "match_id", "rotation", "game_id", "game__status"
    )
    entries = MatchEntry.objects.select_related("version__bot__owner").order_by("position")
    deals = ChallengeDeal.objects.select_related("match").prefetch_related(
        Prefetch("match__entries", queryset=entries),
        Prefetch("match__match_games", queryset=games),
    )
    return challenges.select_related("bot", "by").prefetch_related(
        Prefetch("deal_rows", queryset=deals.order_by("number"))
    )


def challenge_status(deals: list[ChallengeDeal]) -> str:
    """``finished`` once every deal ended, ``scheduled`` while none has started, else
    ``running``."""
    statuses = [d.match.status for d in deals]
    if all(s in ENDED for s in statuses):
        return FINISHED
    if all(s == Match.Status.SCHEDULED for s in statuses):
        return SCHEDULED
    return RUNNING


def challenge_results(challenge: Challenge) -> Results:
    """The results of a challenge read by ``challenges_with_deals``."""
    deals = list(challenge.deal_rows.all())
    entries = list(deals[0].match.entries.all()) if deals else []
    rows = [_deal_row(deal) for deal in deals]
    return Results(challenge, challenge_status(deals), _standing(entries, rows), rows)


def _deal_row(deal: ChallengeDeal) -> DealRow:
    match = deal.match
    finished = match.status == Match.Status.FINISHED
    cells = [
        Cell(e.place, e.dollars, e.forfeited) if finished else Cell(None, None, False)
        for e in match.entries.all()
    ]
    games = [
        GameLink(mg.rotation, mg.game_id, mg.game.status == Game.Status.FINISHED)
        for mg in match.match_games.all()
    ]
    return DealRow(deal.number, match.pk, match.status, cells, games)


def _standing(entries: list[MatchEntry], deals: list[DealRow]) -> list[EntrantRow]:
    """Each entrant's standing (by position) over the finished deals."""
    played = [d for d in deals if d.status == Match.Status.FINISHED]
    standings = []
    for e in entries:
        cells = [d.cells[e.position] for d in played]
        standings.append(
            ratings.Standing(
                key=e.position,
                places=sum(c.place or 0 for c in cells),
                dollars=sum(c.dollars or 0 for c in cells),
                forfeited=False,  # a deal on autopilot counts its places, no more
            )
        )
    places = ratings.ranks(standings) if played else {}
    rows = []
    for e, standing in zip(entries, standings, strict=True):
        own = [float(d.cells[e.position].place or 0) for d in played]
        mean = interval(own) if own else None
        rows.append(
            EntrantRow(
                position=e.position,
                version=e.version,
                place=places.get(e.position),
                deals_played=len(own),
                first_places=sum(p == 1 for p in own),
                mean_place=mean.mean if mean else None,
                mean_place_half=mean.half if mean and len(own) > 1 else None,
                dollars=standing.dollars,
            )
        )
    return rows
