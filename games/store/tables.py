"""The writes of a table's life outside its log: opening, seating, dealing, ending by fiat,
a recorded game's rounds, and the mark of a game a competition counts (part of
games.store).

These run once or a few times per game, so they are the ORM's, and portable as they are;
the services decide when (and hold the transaction and the game row's lock), this module
how the rows are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.engine import State
from games.models import Event, Game, Round, Seat
from games.store import states
from games.store.writes import places_set, rounds_append


def game_open(game: Game, players: Sequence[User | None]) -> Game:
    """Insert a new ``game`` row with one seat per entry of ``players`` (None: empty; a
    user's seat is taken now)."""
    game.save(force_insert=True)
    now = timezone.now()
    Seat.objects.bulk_create(
        Seat(game=game, number=n, user=user, joined_at=now if user else None)
        for n, user in enumerate(players)
    )
    return game


def seat_take(seat: Seat, user: User) -> Seat:
    """``user`` sits in ``seat``, from now."""
    seat.user, seat.joined_at = user, timezone.now()
    seat.save(update_fields=["user", "joined_at"])
    return seat


def seat_free(game: Game, user: User) -> bool:
    """``user`` leaves their seat at ``game``; False if they had none."""
    return bool(Seat.objects.filter(game=game, user=user).update(user=None, joined_at=None))


def time_banks_fill(game: Game) -> None:
    """Every seat of a game with a time bank gets a full one (a game being dealt)."""
    if game.time_bank_seconds is not None:
        Seat.objects.filter(game=game).update(time_bank_ms=game.time_bank_seconds * 1000)


def game_dealt(game: Game, state: State) -> Event:
    """A started game's rows: the game row as set, the deal as seq 0 of its log, and
    ``state`` as its snapshot. Returns the deal's entry."""
    deal = Event.objects.create(
        game=game, seq=0, public_events=list(state.history), origin=Event.Origin.DEAL
    )
    game.save()
    states.save_state(game, state)
    return deal


def in_competition_mark(games: Sequence[Game]) -> None:
    """These games count for a competition from now (``Game.in_competition``), in the row
    and on each instance."""
    Game.objects.filter(pk__in=[g.pk for g in games]).update(in_competition=True)
    for game in games:
        game.in_competition = True


def game_saved(game: Game, fields: Sequence[str] | None = None) -> None:
    """Write the game row as set (its named ``fields`` only, if given): a game ended by
    fiat, its bot seats named."""
    game.save(update_fields=fields)


def deadline_show(game_id: int, version: int, deadline: datetime) -> bool:
    """The game's pending decision shows ``deadline``, if it is still the one at ``version``."""
    still = Game.objects.filter(pk=game_id, version=version, status=Game.Status.ACTIVE)
    return bool(still.update(deadline=deadline))


def time_bank(game: Game, seat: int) -> int | None:
    """The time bank of the game's seat ``seat``, in milliseconds (None: it has none)."""
    banks = Seat.objects.filter(game=game, number=seat).values_list("time_bank_ms", flat=True)
    return banks.first()


def rounds_replace(
    game: Game,
    publics: Sequence[dict[str, Any]],
    ranking: Sequence[dict[str, Any]] | None,
    finished_at: datetime,
) -> None:
    """A recorded game's derived rows rebuilt whole: its rounds (finished at
    ``finished_at``) and scores from the ``round_end``-shaped ``publics``, the seats'
    places from ``ranking`` (None: cleared, the game goes on), then the game row as set."""
    Round.objects.filter(game=game).delete()
    rounds_append(game.pk, publics, finished_at)
    if ranking is None:
        Seat.objects.filter(game=game).update(
            place=None, tally=None, round_wins=None, is_winner=False
        )
    else:
        places_set(game.pk, ranking)
    game.save()
