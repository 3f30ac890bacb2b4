"""A table's life before play: create, join, leave, start, and fork an ended game."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from cya_site import metrics
from cya_site.errors import DomainError
from games import seating, selectors, store
from games.engine import RuleSet
from games.models import Game, Seat
from games.services import announce, checks, progress


@dataclass(frozen=True)
class ForkOrigin:
    """Where a forked table starts: ``parent``'s position after ``step`` actions, with the
    cards no seat has seen dealt again from the fork's seed if ``redeal`` (engine.fork)."""

    parent: Game
    step: int
    redeal: bool


@transaction.atomic
def game_create(
    *,
    by: User,
    rules: RuleSet,
    take_seat: bool = True,
    decision_seconds: int | None = None,
    time_bank_seconds: int | None = None,
    seat: int = 0,
    bots: Sequence[seating.BotChoice] = (),
    auto_start: bool = False,
    origin: ForkOrigin | None = None,
    rematch_of: Game | None = None,
    rated: bool = False,
) -> Game:
    """Open a table with the rule set's seats; the creator takes ``seat`` (0) unless told not to.

    ``bots`` fill seats with bots (games.seating: the bots app seats them and moves them).
    A table with bot seats, or made with ``auto_start``, starts by itself once its last
    seat is taken: at once if the creator and the bots fill it. With ``origin`` the table
    is a fork (``game_fork`` checks the origin): once started it plays on from that
    position instead of a new deal. A ``rated`` table's result moves its players' online
    ratings; a fork never is (it did not start from a deal).
    """
    game = Game(
        created_by=by,
        rules=rules.to_json(),
        seat_count=rules.seats,
        decision_seconds=decision_seconds,
        time_bank_seconds=time_bank_seconds,
        auto_start=auto_start or bool(bots),
        forked_from=None if origin is None else origin.parent,
        fork_step=None if origin is None else origin.step,
        fork_redeal=origin is not None and origin.redeal,
        rematch_of=rematch_of,
        rated=rated and origin is None,
    )
    store.game_open(game, [None] * rules.seats)
    if take_seat:
        game_join(game=game, user=by, seat=seat, start=False)
    if bots:
        seating.players().seat(game=checks.locked(game.pk), choices=bots, by=by)
        game.bot_seats = sorted(choice.seat for choice in bots)
        store.game_saved(game, ["bot_seats"])
    if game.auto_start:  # seated and maybe dealt by now: the row as it stands
        _start_if_full(game)
        game.refresh_from_db()
    return game


@transaction.atomic
def game_join(*, game: Game, user: User, seat: int | None = None, start: bool = True) -> Seat:
    """Take a seat (the lowest free one unless ``seat`` is given) at an open table.

    Taking the last seat of a table that starts by itself (``auto_start``) starts it,
    unless ``start`` is False (its creation is still seating it)."""
    game = checks.locked(game.pk)
    checks.require_open(game)
    if Seat.objects.filter(game=game, user=user).exists():
        raise DomainError("already_seated", "You already have a seat at this table.", status=409)
    free = Seat.objects.filter(game=game, user__isnull=True).order_by("number")
    if seat is not None:
        if not 0 <= seat < game.seat_count:
            raise DomainError(
                "no_such_seat",
                f"This table has seats 0 to {game.seat_count - 1}.",
                {"seat": seat},
            )
        free = free.filter(number=seat)
    chosen = free.first()
    if chosen is None:
        code, message = (
            ("seat_taken", "That seat is taken.")
            if seat is not None
            else (
                "table_full",
                "Every seat at this table is taken.",
            )
        )
        raise DomainError(code, message, status=409)
    store.seat_take(chosen, user)
    if start:
        _start_if_full(game)
    return chosen


def _start_if_full(game: Game) -> None:
    """Deal a table that starts by itself once no seat is free (for its creator)."""
    if game.auto_start and not Seat.objects.filter(game=game, user__isnull=True).exists():
        game_start(game=game, by=game.created_by)


@transaction.atomic
def game_leave(*, game: Game, user: User) -> None:
    """Give up a seat at a table that has not started."""
    game = checks.locked(game.pk)
    checks.require_open(game)
    if not store.seat_free(game, user):
        raise DomainError("not_seated", "You have no seat at this table.", status=403)


@transaction.atomic
def game_start(*, game: Game, by: User, seed: int | None = None) -> Game:
    """Deal the first round. Only the creator (or staff) starts; every seat must be taken.

    ``seed`` may be fixed by staff only (demos and tests): a player who knew the seed
    would know every hand.
    """
    game = checks.locked(game.pk)
    if by.pk != game.created_by_id and not by.is_staff:
        raise DomainError("not_creator", "Only the table's creator can start it.", status=403)
    checks.require_open(game)
    if seed is not None and not by.is_staff:
        raise DomainError("seed_forbidden", "Only staff may choose a game's seed.", status=403)
    empty = list(Seat.objects.filter(game=game, user__isnull=True).values_list("number", flat=True))
    if empty:
        raise DomainError(
            "seats_not_filled",
            "Every seat must be taken first.",
            {"empty_seats": empty},
            status=409,
        )
    game.seed = secrets.randbits(63) if seed is None else seed
    state = store.initial_state(game)
    now = timezone.now()
    game.status = Game.Status.ACTIVE
    game.started_at = now
    store.time_banks_fill(game)  # before set_decision reads the first seat's bank
    bank = progress.set_decision(game, state, now)
    deal = store.game_dealt(game, state)
    announce.after_commit(game, state, bank, [store.public_entry(deal)])
    transaction.on_commit(metrics.GAMES_STARTED.inc)
    return game


@transaction.atomic
def game_fork(
    *,
    game: Game,
    step: int,
    redeal: bool,
    by: User,
    take_seat: bool = True,
    seat: int | None = None,
    decision_seconds: int | None = None,
    time_bank_seconds: int | None = None,
    bots: Sequence[seating.BotChoice] = (),
) -> Game:
    """Open a table that plays on from an ended game's position after ``step`` actions.

    The new table has the parent's rules and seats; once started (``game_start``, as any
    table) its first state is the engine's ``fork`` of that position, at version 0, with
    a seed of its own, secret until it ends, for every later round and, with ``redeal``,
    for dealing again the deck, the hands and the face-down draft-pile cards (docs/engine.md).
    ``by`` takes ``seat`` unless ``take_seat`` is False: by default the seat ``by`` had in
    the parent, else seat 0 (the lowest seat no bot takes, if a bot takes that one);
    ``bots`` fill seats as in ``game_create``, and such a table starts by itself once the
    people's seats are taken; the other seats are taken by joining.

    The parent must have ended (its replay, the same cards, is public then):
    ``replay_not_available`` otherwise, ``no_such_step`` past its last action,
    ``step_game_over`` at a step where it was already over, ``no_such_seat`` for a seat
    the table does not have.
    """
    parent = fork_source(game=game, step=step)
    if take_seat and seat is None:
        seat = parent.seats.filter(user=by).values_list("number", flat=True).first() or 0
        robots = {choice.seat for choice in bots}
        if seat in robots:
            seat = min(set(range(parent.seat_count)) - robots, default=0)
    if seat is not None and not 0 <= seat < parent.seat_count:
        raise DomainError(
            "no_such_seat", f"This table has seats 0 to {parent.seat_count - 1}.", {"seat": seat}
        )
    return game_create(
        by=by,
        rules=store.rules_of(parent),
        take_seat=take_seat,
        seat=seat or 0,
        decision_seconds=decision_seconds,
        time_bank_seconds=time_bank_seconds,
        bots=bots,
        origin=ForkOrigin(parent, step, redeal),
    )


@transaction.atomic
def game_rematch(*, game: Game, by: User, bots: Sequence[seating.BotChoice] = ()) -> Game:
    """A rematch of an ended game: the same rules, clock and seats, a new deal.

    The first player to ask opens it (``bots`` in the seats they had: the bots app knows
    which), taking the seat they had; it starts by itself once its people's seats are
    taken, so against bots at once. Each player who asks after that takes their old seat
    in the same rematch (one per game). Raises ``game_not_ended`` (409) for a game still
    in play and ``not_seated`` (403) for someone who had no seat at it; ``seat_taken``
    when another took their old seat meanwhile.
    """
    game = checks.locked(game.pk)  # one rematch per game: asks wait for each other
    if game.status not in (Game.Status.FINISHED, Game.Status.ABORTED):
        raise DomainError(
            "game_not_ended", "A rematch can be asked for once the game has ended.", status=409
        )
    seat = Seat.objects.filter(game=game, user=by).values_list("number", flat=True).first()
    if seat is None:
        raise DomainError("not_seated", "You had no seat at this table.", status=403)
    rematch = Game.objects.filter(rematch_of=game).first()
    if rematch is None:
        return game_create(
            by=by,
            rules=store.rules_of(game),
            seat=seat,
            decision_seconds=game.decision_seconds,
            time_bank_seconds=game.time_bank_seconds,
            bots=bots,
            auto_start=True,
            rematch_of=game,
            rated=game.rated,
        )
    if not Seat.objects.filter(game=rematch, user=by).exists():
        game_join(game=rematch, user=by, seat=seat)
        rematch.refresh_from_db()
    return rematch


def fork_source(*, game: Game, step: int) -> Game:
    """``game``, if a table can be forked from it at ``step`` (selectors.fork_steps); else
    the DomainError saying why."""
    steps = selectors.fork_steps(game)
    if not steps:
        raise DomainError(
            "replay_not_available",
            "A game can be forked once it has ended: its replay is public then.",
            status=409,
        )
    if not 0 <= step <= game.version:
        raise DomainError(
            "no_such_step", f"The game has {game.version} steps.", {"steps": game.version}
        )
    if step not in steps:
        raise DomainError(
            "step_game_over",
            f"After step {step} the game was over: fork an earlier step.",
            {"last_step": steps[-1]},
            status=409,
        )
    return game


def games_in_competition(*, games: Sequence[Game]) -> None:
    """A competition counts these games (tournaments, as it enters them): the end of each
    is announced as one that counts (``games.signals.game_ended``)."""
    store.in_competition_mark(games)
