"""The writers of people's ratings (docs/ratings.md): the online pool and each league's
club pool, OpenSkill Plackett-Luce as the bot ladder (tournaments.rating_history).

- Online: a table opened as rated (``Game.rated``) that finishes moves the online rating
  of everyone seated, by account. Bot seats count as players like anyone: a bot's account
  has an online rating of its own (apart from its ladder rating), so beating a weak bot
  is worth little and losing to one costs. Aborted games are void and never rated.
- Club: a league's pool is worked out from the current results of its seasons and
  tournaments (recorded and digital), by roster entry, so a roster guest has a rating
  too. Results can be corrected, so a club pool is recomputed whenever the results it
  was computed from changed (a fingerprint), when it is read.

Both are a function of their history: ``ratings_recompute`` rebuilds every pool, and the
same history gives the same ratings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from bots.ratings import provisional
from games.models import Game, Seat
from tournaments.models import (
    League,
    PersonRating,
    PersonRatingChange,
    RatingPool,
    Result,
)
from tournaments.rating_history import PlayedGame, Rating, Step, apply, replay
from tournaments.rating_history import Seat as RatedSeat


def online_pool(*, lock: bool = False) -> RatingPool:
    """The one online pool (made on first use); ``lock`` holds it to the transaction."""
    RatingPool.objects.get_or_create(league=None)
    pools = RatingPool.objects.filter(league__isnull=True)
    return (pools.select_for_update() if lock else pools).get()


def _online_played(games: Iterable[Game]) -> list[PlayedGame]:
    ids = [g.pk for g in games]
    seats: dict[int, list[RatedSeat]] = {}
    rows = Seat.objects.filter(game_id__in=ids, user__isnull=False, place__isnull=False)
    for seat in rows.order_by("game_id", "number"):
        assert seat.user_id is not None
        assert seat.place is not None
        seats.setdefault(seat.game_id, []).append(
            RatedSeat(key=seat.user_id, place=seat.place, dollars=seat.tally or 0)
        )
    return [
        PlayedGame(g.pk, g.finished_at or g.created_at, tuple(seats.get(g.pk, ()))) for g in games
    ]


def _online_games() -> list[Game]:
    return list(
        Game.objects.filter(rated=True, status=Game.Status.FINISHED, mode=Game.Mode.DIGITAL).only(
            "id", "finished_at", "created_at"
        )
    )


@transaction.atomic
def online_game_rate(*, game_id: int) -> bool:
    """Rate a finished rated game in the online pool (idempotent: a game is rated once).
    A game that ended before the last one applied (two tables ending together, taken in
    the other order) has the pool recomputed, so the order is always the games'.
    Returns whether ratings changed."""
    pool = online_pool(lock=True)
    game = Game.objects.filter(
        pk=game_id, rated=True, status=Game.Status.FINISHED, mode=Game.Mode.DIGITAL
    ).first()
    if game is None or PersonRatingChange.objects.filter(rating__pool=pool, game=game).exists():
        return False
    (played,) = _online_played([game])
    applied = pool.last_game_id is not None and pool.last_played_at is not None
    if applied and played.order < (pool.last_played_at, pool.last_game_id):
        online_recompute()
        return True
    keys = [seat.key for seat in played.seats]
    held: dict[int, PersonRating] = {
        r.user_id: r
        for r in PersonRating.objects.filter(pool=pool, user_id__in=keys)
        if r.user_id is not None
    }
    before = {k: Rating(r.mu, r.sigma, r.games) for k, r in held.items()}
    after, steps = apply(played, before)
    for key in keys:
        rating = held.get(key) or PersonRating(pool=pool, user_id=key)
        rating.mu, rating.sigma, rating.games = after[key].mu, after[key].sigma, after[key].games
        rating.save()
        held[key] = rating
    _changes_write(held, steps)
    pool.last_played_at, pool.last_game_id = played.order
    pool.computed_at = timezone.now()
    pool.save()
    return bool(steps)


@transaction.atomic
def online_recompute() -> int:
    """Rebuild the online pool from every finished rated game; how many games it took."""
    pool = online_pool(lock=True)
    games = _online_games()
    played = _online_played(games)
    _pool_write(pool, played, holder="user")
    last = max((p.order for p in played), default=None)
    pool.last_played_at, pool.last_game_id = last if last else (None, None)
    pool.computed_at = timezone.now()
    pool.save()
    return len(played)


def _league_results(league: League) -> Any:
    return Result.objects.filter(
        Q(competition__season__league=league) | Q(competition__tournament__league=league)
    )


def club_fingerprint(league: League) -> str:
    """What a club pool is computed from: the league's result rows, current and replaced."""
    totals = _league_results(league).aggregate(
        last=Max("id"), current=Count("id", filter=Q(valid_to__isnull=True))
    )
    return f"{totals['last'] or 0}:{totals['current']}"


def _club_played(league: League) -> list[PlayedGame]:
    rows = (
        _league_results(league)
        .filter(valid_to__isnull=True, competitor__member__isnull=False)
        .select_related("game", "competitor")
        .order_by("game_id", "competitor__member_id")
    )
    games: dict[int, tuple[Game, list[RatedSeat]]] = {}
    for row in rows:
        member = row.competitor.member_id
        assert member is not None
        _, seats = games.setdefault(row.game_id, (row.game, []))
        seats.append(RatedSeat(key=member, place=row.place, dollars=row.dollars))
    return [
        PlayedGame(pk, game.finished_at or game.created_at, tuple(seats))
        for pk, (game, seats) in games.items()
    ]


@transaction.atomic
def club_ratings_refresh(*, league: League, force: bool = False) -> RatingPool:
    """The league's club pool, recomputed if its results changed since (or ``force``).
    Writers call it (``tournaments.rate_club``, after a result changed; ``manage.py
    ratings_recompute``); pages only read the pool (``club_pool``)."""
    RatingPool.objects.get_or_create(league=league)
    pool = RatingPool.objects.select_for_update().get(league=league)
    fingerprint = club_fingerprint(league)
    if force or pool.fingerprint != fingerprint:
        played = _club_played(league)
        _pool_write(pool, played, holder="member")
        pool.fingerprint = fingerprint
        pool.computed_at = timezone.now()
        pool.save()
    return pool


def club_ratings_update(*, league_id: int) -> bool:
    """``club_ratings_refresh`` of a league by id (the task's); True if it recomputed.
    A league deleted meanwhile has nothing to rate."""
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        return False
    before = RatingPool.objects.filter(league=league).values_list("computed_at", flat=True)
    was = before.first()
    return club_ratings_refresh(league=league).computed_at != was


def club_pool(league: League) -> RatingPool | None:
    """The league's club pool as last computed (None before its first result)."""
    return RatingPool.objects.filter(league=league).first()


def ratings_recompute() -> dict[str, int]:
    """Every pool rebuilt from its history (``manage.py ratings_recompute``): games taken
    online, and leagues recomputed."""
    online = online_recompute()
    leagues = 0
    for league in League.objects.order_by("id"):
        club_ratings_refresh(league=league, force=True)
        leagues += 1
    return {"online_games": online, "leagues": leagues}


def _pool_write(pool: RatingPool, played: list[PlayedGame], *, holder: str) -> None:
    """Replace a pool's ratings and changes by those its games give."""
    PersonRating.objects.filter(pool=pool).delete()
    ratings, steps = replay(played)
    rows = {
        key: PersonRating(pool=pool, mu=r.mu, sigma=r.sigma, games=r.games, **{f"{holder}_id": key})
        for key, r in ratings.items()
    }
    PersonRating.objects.bulk_create(rows.values())
    _changes_write(rows, steps)


def _changes_write(rows: dict[int, PersonRating], steps: list[Step]) -> None:
    PersonRatingChange.objects.bulk_create(
        PersonRatingChange(
            rating=rows[s.key],
            game_id=s.game_id,
            number=s.number,
            played_at=s.played_at,
            table_size=s.table_size,
            place=s.place,
            expected_place=s.expected_place,
            mu_before=s.before.mu,
            sigma_before=s.before.sigma,
            mu_after=s.after.mu,
            sigma_after=s.after.sigma,
        )
        for s in steps
    )


def rating_provisional(rating: PersonRating) -> bool:
    """Provisional until the rating is sure enough and has enough games, as a bot's
    (bots.ratings: sigma under 4 and 10 games)."""
    return provisional(rating.sigma, rating.games)


def change_explained(change: PersonRatingChange) -> str:
    """Why a game moved a rating, in words: the place expected before it against the
    place taken, and what that did to the rating (mu - 3 sigma) and its uncertainty."""
    before = change.mu_before - 3 * change.sigma_before
    after = change.mu_after - 3 * change.sigma_after
    if abs(change.place - change.expected_place) < 0.25:
        verdict = _("as expected")
    elif change.place < change.expected_place:
        verdict = _("better than expected")
    else:
        verdict = _("worse than expected")
    return _(
        "Expected place %(expected).1f of %(size)d, finished %(place)d (%(verdict)s): "
        "rating %(delta)+.1f, uncertainty %(sigma)+.2f."
    ) % {
        "expected": change.expected_place,
        "size": change.table_size,
        "place": change.place,
        "verdict": verdict,
        "delta": after - before,
        "sigma": change.sigma_after - change.sigma_before,
    }
