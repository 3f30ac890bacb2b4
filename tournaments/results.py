"""Deriving Result rows from games: one per competitor per counted game, kept temporal.

A game counts for a competition once it has finished (a recorded game: every round
confirmed too). When a counted game's outcome changes (a correction), its current rows
are closed (``valid_to``) and new ones opened, so standings as of any earlier moment
still see what was true then. A player who left and was replaced by a substitute gets the
fixed score when the substitution's policy says so. Nothing here decides a rule: places
and tallies come from the game's seats, which the engine (or the recorded rounds through
it) already set.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, cast

from celery import Task, signature
from django.db import transaction
from django.db.models import Count

from cya_site import dispatch
from games import services as game_services
from games.models import Game, RoundScore, Seat
from tournaments import notifications
from tournaments.models import (
    Competition,
    GameEntry,
    Result,
    ScoreRecord,
    Season,
    SubstitutePolicy,
    Substitution,
    Tournament,
)
from tournaments.ranking import normalised

# What a player who left gets under the fixed-score substitute policy: last place at the
# table, whatever the substitute made of the seat; the others keep the places they played.
FIXED_SCORE = {
    "points": 0.0,
    "placement": 0.0,
    "dollars": 0,
    "dsi": 0.0,
    "rounds_won": 0,
    "won": False,
}
_FIELDS = ("table_size", "place", "points", "placement", "dollars", "dsi", "rounds_won", "won")


def games_enter(entries: Iterable[GameEntry]) -> list[GameEntry]:
    """Enter games into competitions: their ``GameEntry`` rows (who sits where), and each
    game marked as counted (``Game.in_competition``), so its end sends its result here
    (tasks.take_result) with no query for the games no competition counts."""
    created = GameEntry.objects.bulk_create(entries)
    games = {entry.game_id: entry.game for entry in created}
    game_services.games_in_competition(games=list(games.values()))
    return created


def counts(game: Game) -> bool:
    """Whether a game's result counts: finished, and (recorded) every round confirmed."""
    if game.status != Game.Status.FINISHED:
        return False
    if game.mode == Game.Mode.RECORDED:
        effective = ScoreRecord.objects.filter(game=game, superseded_by__isnull=True)
        return not effective.exclude(status=ScoreRecord.Status.CONFIRMED).exists()
    return True


def rows_for(competition: Competition, game: Game) -> list[dict[str, object]]:
    """The result rows a counted game gives this competition's competitors."""
    seats = {s.number: s for s in Seat.objects.filter(game=game)}
    n = game.seat_count
    table_dollars = sum(s.tally or 0 for s in seats.values())
    wins = dict(
        RoundScore.objects.filter(round__game=game, won_round=True)
        .values_list("seat__number")
        .annotate(n=Count("id"))
    )
    fixed = set(
        Substitution.objects.filter(
            competition=competition, game=game, policy=SubstitutePolicy.FIXED
        ).values_list("seat", flat=True)
    )
    out = []
    for entry in GameEntry.objects.filter(competition=competition, game=game):
        seat = seats[entry.seat]
        place = seat.place or n
        dollars = seat.tally or 0
        placement = normalised(place, n)
        row = {
            "competitor_id": entry.competitor_id,
            "night_id": entry.night_id,
            "table_size": n,
            "place": place,
            "points": placement,
            "placement": placement,
            "dollars": dollars,
            "dsi": dollars * n / table_dollars if table_dollars else 1.0,
            "rounds_won": wins.get(entry.seat, 0),
            "won": seat.is_winner,
        }
        if entry.seat in fixed:  # left, replaced: the fixed score (docs/tournaments.md)
            row.update(FIXED_SCORE, place=n)
        out.append(row)
    return out


@transaction.atomic
def sync_game(*, competition: Competition, game: Game, now: datetime) -> bool:
    """Make the competition's current rows for a game match it; True if anything changed."""
    current = {
        r.competitor_id: r
        for r in Result.objects.select_for_update().filter(
            competition=competition, game=game, valid_to__isnull=True
        )
    }
    wanted: dict[int, dict[str, object]] = {}
    if counts(game):
        wanted = {int(str(row["competitor_id"])): row for row in rows_for(competition, game)}
    changed = False
    for competitor_id, result in current.items():
        row = wanted.get(competitor_id)
        if row is not None and all(getattr(result, f) == row[f] for f in _FIELDS):
            del wanted[competitor_id]  # unchanged: its current row stays valid
            continue
        result.valid_to = now
        result.save(update_fields=["valid_to"])
        changed = True
    for row in wanted.values():
        Result.objects.create(competition=competition, game=game, valid_from=now, **row)
        changed = True
    if changed:
        _rate_club_on_commit(competition)
    return changed


RATE_CLUB = "tournaments.rate_club"  # tournaments.tasks.rate_club


def _rate_club_on_commit(competition: Competition) -> None:
    """The league's club ratings follow its results (people_ratings.club_ratings_refresh),
    recomputed by a batch task once the change commits, never inside a page's read."""
    owner = Season if competition.kind == Competition.Kind.SEASON else Tournament
    league = (
        owner.objects.filter(competition=competition).values_list("league_id", flat=True).first()
    )
    if league is not None:
        task = cast(Task[Any, Any], signature(RATE_CLUB))  # a Task's apply_async
        dispatch.send_on_commit(task, (league,))


def take_in(*, competition: Competition, game: Game, now: datetime) -> bool:
    """Take a game's result into the competition and, if it changed and counts, tell the
    competition's webhooks (``game.result``); True if anything changed. Idempotent: the
    game's end, its recorded rounds, its round's close and the safety net all call it."""
    changed = sync_game(competition=competition, game=game, now=now)
    if changed and counts(game):
        notifications.result_ready(competition, game)
    return changed
