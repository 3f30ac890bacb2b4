"""Every change to a game: create, join, leave, start, act, resign, time out, abort.

Each service is one transaction. An action is checked against the version the client
saw, applied through the engine (services never re-implement a rule), and appended to
the log with every row it changes (the game's pending decision, its snapshot, round
scores and final places) in one statement that writes only if the game is still at that
version (games.eventlog.append): the statement is the transaction, and the game row's
lock is held only while it runs. Changes that name no version (a resignation, a timeout,
joining, starting, aborting) lock the game row (``select_for_update``) first. Waiting
clients are told after the commit (games.notify); a decision with a deadline gets a
task that applies the engine's safe default if nobody answers in time (games.tasks).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from cya_site import dispatch, metrics
from cya_site.errors import DomainError
from games import eventlog, feed, notify, seating, selectors, signals, store
from games.engine import (
    RuleSet,
    State,
    action_from_json,
    action_to_json,
    apply,
    default_action,
    resign,
)
from games.engine.actions import resign as resign_action
from games.engine.rules import compile_rules
from games.engine.scoring import ranking
from games.engine.state import DECISION_NAMES
from games.models import Event, Game, Playout, Round, Seat


@dataclass(frozen=True)
class ActionResult:
    """What a submission did: the game after it, the acting seat, the log entry, and
    whether it was a retry of an earlier one."""

    game: Game
    seat: Seat
    event: Event
    replayed: bool = False


# The columns an action can change: saving only these keeps a submission's UPDATE small
# (the rules and the other fixed columns are never rewritten).
PROGRESS_FIELDS = (
    "version",
    "to_act",
    "decision_kind",
    "round_number",
    "deadline",
    "status",
    "finished_at",
    "winners",
    "end_reason",
)


# --- tables ---------------------------------------------------------------------------


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
) -> Game:
    """Open a table with the rule set's seats; the creator takes ``seat`` (0) unless told not to.

    ``bots`` fill seats with bots (games.seating: the bots app seats them and moves them).
    A table with bot seats, or made with ``auto_start``, starts by itself once its last
    seat is taken: at once if the creator and the bots fill it. With ``origin`` the table
    is a fork (``game_fork`` checks the origin): once started it plays on from that
    position instead of a new deal.
    """
    game = Game.objects.create(
        created_by=by,
        rules=rules.to_json(),
        seat_count=rules.seats,
        decision_seconds=decision_seconds,
        time_bank_seconds=time_bank_seconds,
        auto_start=auto_start or bool(bots),
        forked_from=None if origin is None else origin.parent,
        fork_step=None if origin is None else origin.step,
        fork_redeal=origin is not None and origin.redeal,
    )
    Seat.objects.bulk_create(Seat(game=game, number=n) for n in range(rules.seats))
    if take_seat:
        game_join(game=game, user=by, seat=seat, start=False)
    if bots:
        seating.players().seat(game=_locked(game.pk), choices=bots, by=by)
        game.bot_seats = sorted(choice.seat for choice in bots)
        game.save(update_fields=["bot_seats"])
    if game.auto_start:  # seated and maybe dealt by now: the row as it stands
        _start_if_full(game)
        game.refresh_from_db()
    return game


@transaction.atomic
def game_join(*, game: Game, user: User, seat: int | None = None, start: bool = True) -> Seat:
    """Take a seat (the lowest free one unless ``seat`` is given) at an open table.

    Taking the last seat of a table that starts by itself (``auto_start``) starts it,
    unless ``start`` is False (its creation is still seating it)."""
    game = _locked(game.pk)
    _require_open(game)
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
    chosen.user = user
    chosen.joined_at = timezone.now()
    chosen.save(update_fields=["user", "joined_at"])
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
    game = _locked(game.pk)
    _require_open(game)
    updated = Seat.objects.filter(game=game, user=user).update(user=None, joined_at=None)
    if not updated:
        raise DomainError("not_seated", "You have no seat at this table.", status=403)


@transaction.atomic
def game_start(*, game: Game, by: User, seed: int | None = None) -> Game:
    """Deal the first round. Only the creator (or staff) starts; every seat must be taken.

    ``seed`` may be fixed by staff only (demos and tests): a player who knew the seed
    would know every hand.
    """
    game = _locked(game.pk)
    if by.pk != game.created_by_id and not by.is_staff:
        raise DomainError("not_creator", "Only the table's creator can start it.", status=403)
    _require_open(game)
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
    state = eventlog.initial_state(game)
    now = timezone.now()
    game.status = Game.Status.ACTIVE
    game.started_at = now
    if game.time_bank_seconds is not None:
        Seat.objects.filter(game=game).update(time_bank_ms=game.time_bank_seconds * 1000)
    deal = Event.objects.create(game=game, seq=0, public_events=list(state.history), origin="deal")
    bank = _set_decision(game, state, now)
    game.save()
    store.save_state(game, state)
    _after_commit(game, state, bank, [_entry(deal)])
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


# --- play -----------------------------------------------------------------------------


def action_submit(
    *,
    game_id: int,
    user: User,
    action: Any,
    version: int,
    key: str | None = None,
    origin: str = "api",
) -> ActionResult:
    """Apply one action for the user's seat, if it answers the decision at ``version``.

    A retry carrying a ``key`` (Idempotency-Key) that was already applied gets the
    original result and applies nothing. A submission for any other version than the
    current one is stale (409); an action the engine refuses gets the engine's code.

    Optimistic: the game is read without a lock and the action applied by the engine,
    then everything is written in one statement that only writes if the game is still
    at ``version`` (eventlog.append), so no lock is held while the engine works. Of
    concurrent submissions for one decision exactly one is applied; the others find the
    version moved on (``stale_version``), or, sent with the winner's key, its result.
    """
    try:
        result = _submit(game_id, user, action, version, key, origin)
    except Exception as error:  # counted by code (DomainError's, the engine's), re-raised
        metrics.ACTIONS_REFUSED.labels(getattr(error, "code", "error")).inc()
        raise
    metrics.ACTIONS_SUBMITTED.labels(origin).inc()
    return result


def _submit(
    game_id: int, user: User, action: Any, version: int, key: str | None, origin: str
) -> ActionResult:
    if key is None:
        seat, earlier = selectors.seat_at(game_id, user), None
    else:
        seat, earlier = selectors.seat_and_entry(game_id, user, key)
    if earlier is not None:
        return _replayed(earlier, seat, user)
    game = seat.game
    _require_active(game)
    if version != game.version:
        raise _stale(game)
    state = store.load_state(game)
    edition = state.rules.edition
    code = action_from_json(action, edition)
    new_state, events = apply(state, code, seat=seat.number)
    try:
        event = _record(
            game,
            state,
            new_state,
            events,
            seat=seat,
            actor=user,
            action=action_to_json(code, edition),
            code=code,
            key=key,
            origin=origin,
        )
    except (DomainError, IntegrityError):
        # Another submission won. Sent with this key (a retry racing its original, or a
        # key reused at another version), it is this request's result.
        if key is not None:
            won = Event.objects.filter(game_id=game_id, idempotency_key=key).first()
            if won is not None:
                seat.game.refresh_from_db()
                return _replayed(won, seat, user)
        raise
    return ActionResult(game, seat, event)


def actions_record(*, game: Game, choose: Callable[[State], int], origin: str) -> Game:
    """Play a game from its stored version to its end, ``choose`` picking every action,
    and write it all at once: the actions as one ``Playout`` row of the log.

    For games every seat of which is decided in-process (built-in strategies). The
    playout starts from the state the log gives at ``game.version`` (store.load_state),
    and every choice is applied here, through the engine, exactly once: an illegal one
    raises before anything is written, and the log entries, rounds and places written
    are the engine's own results, never the caller's. The write is guarded by the game's
    status and version (eventlog.append): if anything moved the game on meanwhile,
    nothing is written and it refuses (``stale_version``, ``game_over``), so the entries
    continue the log.
    """
    return actions_record_all([(game, choose)], origin=origin)[0]


def actions_record_all(
    plays: Sequence[tuple[Game, Callable[[State], int]]], *, origin: str
) -> list[Game]:
    """``actions_record`` for several games (a match's), written together in one round
    trip (eventlog.append_all) and announced together. If one of them moved on meanwhile,
    the others are still written and announced, and it refuses for that one."""
    played = [_play_out(game, choose, origin) for game, choose in plays]
    written = eventlog.append_all([p.append for p in played])
    with notify.batch():
        for p, ok in zip(played, written, strict=True):
            if ok:
                store.saved(p.append.game, p.state, p.append.snapshot)
                _after_commit(p.append.game, p.state)  # no entries: read /events/
    for p, ok in zip(played, written, strict=True):
        if not ok:
            raise _moved(p.append.game)
    return [game for game, _ in plays]


@dataclass(frozen=True)
class _PlayedOut:
    append: eventlog.Append
    state: State


def _play_out(game: Game, choose: Callable[[State], int], origin: str) -> _PlayedOut:
    """Play ``game`` to its end in memory; the game row's new fields are set, nothing is
    written."""
    _require_active(game)
    start = game.version
    state = store.load_state(game)
    played: list[int] = []
    rounds: list[dict[str, Any]] = []
    ended = None
    while not state.over:
        code = choose(state)
        state, events = apply(state, code, seat=state.to_act)
        played.append(code)
        for public in events:
            if public["type"] == "round_end":
                rounds.append(public)
            elif public["type"] == "game_end":
                ended = public
    now = timezone.now()
    game.version = state.version
    game.round_number = state.round
    ranking = None
    if ended is not None:
        _end_fields(game, ended, now)
        ranking = ended["ranking"]
    playout = Playout(game=game, first_seq=start + 1, codes=played, origin=origin, created_at=now)
    snapshot = store.snapshot_bytes(state)
    entry = eventlog.Append(game, start, playout, PROGRESS_FIELDS, snapshot, rounds, ranking)
    return _PlayedOut(entry, state)


@transaction.atomic
def game_resign(*, game: Game, user: User) -> ActionResult:
    """Leave a started game: the engine plays the seat's default actions, ranked last.

    It names no version, so it takes the game's lock: it applies to whatever version
    the game is at when it gets the lock, and nothing can move the game on meanwhile.
    """
    seat = selectors.seat_at(game.pk, user, lock=True)
    game = seat.game
    _require_active(game)
    state = store.load_state(game)
    new_state, events = resign(state, seat.number)
    seat.resigned_at = timezone.now()
    code = resign_action(seat.number)
    event = _record(
        game,
        state,
        new_state,
        events,
        seat=seat,
        actor=user,
        action=action_to_json(code, state.rules.edition),
        code=code,
        origin="resign",
        seat_fields=("resigned_at",),
    )
    return ActionResult(game, seat, event)


@transaction.atomic
def decision_timeout(*, game_id: int, version: int) -> Event | datetime | None:
    """Apply the engine's safe default if the decision at ``version`` is still unanswered.

    Idempotent: a second run, or a run after the seat answered, finds the version moved
    on and does nothing (None). A run before the deadline (a clock ahead of the
    database's, an early broker) changes nothing and returns the deadline to retry at.
    """
    game = _locked(game_id)
    if game.status != Game.Status.ACTIVE or game.version != version or game.deadline is None:
        return None
    if timezone.now() < game.deadline:
        return game.deadline
    state = store.load_state(game)
    code = default_action(state)
    new_state, events = apply(state, code)
    seat = Seat.objects.get(game=game, number=state.to_act)
    seat.time_bank_ms = 0
    return _record(
        game,
        state,
        new_state,
        events,
        seat=seat,
        actor=None,
        action=action_to_json(code, state.rules.edition),
        code=code,
        origin="timeout",
        seat_fields=("time_bank_ms",),
    )


def deadline_set(*, game: Game, version: int, deadline: datetime) -> bool:
    """Show a deadline on the pending decision (bot matches enforce theirs in the runner).

    Only the decision at ``version`` gets it: False when the game has moved on.
    """
    return bool(
        Game.objects.filter(pk=game.pk, version=version, status=Game.Status.ACTIVE).update(
            deadline=deadline
        )
    )


@transaction.atomic
def game_abort(*, game: Game, by: User, reason: str) -> Game:
    """Void a game (staff): it ends without a result and is never rated."""
    if not by.is_staff:
        raise DomainError("permission_denied", "Only staff can abort a game.", status=403)
    game = _locked(game.pk)
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        raise DomainError("game_over", "The game has already ended.", status=409)
    game.status = Game.Status.ABORTED
    game.finished_at = timezone.now()
    game.end_reason = reason[:20] or "aborted"
    game.to_act = None
    game.deadline = None
    game.save()
    _after_commit(game)
    return game


# --- games played at real tables ---------------------------------------------------------


@transaction.atomic
def recorded_game_create(*, by: User, rules: RuleSet, players: list[User | None]) -> Game:
    """A game played with real cards, whose rounds are recorded (one entry per seat;
    None for a guest without an account)."""
    if len(players) != rules.seats:
        raise DomainError("wrong_seat_count", f"The rules seat {rules.seats}, not {len(players)}.")
    now = timezone.now()
    game = Game.objects.create(
        created_by=by,
        mode=Game.Mode.RECORDED,
        status=Game.Status.ACTIVE,
        rules=rules.to_json(),
        seat_count=rules.seats,
        started_at=now,
        round_number=1,
    )
    Seat.objects.bulk_create(
        Seat(game=game, number=n, user=user, joined_at=now if user else None)
        for n, user in enumerate(players)
    )
    return game


@transaction.atomic
def recorded_rounds_set(
    *, game: Game, rounds: list[list[int]], winners: tuple[int, ...] | None
) -> Game:
    """Bring a recorded game's derived rows in line with its effective rounds.

    Rounds, round scores, status and final places are derived from the score ledger
    (tournaments), so they are rebuilt whole; the ledger itself is never rewritten.
    """
    game = _locked(game.pk)
    if game.mode != Game.Mode.RECORDED:
        raise DomainError("not_recorded", "Only a recorded game takes recorded rounds.", status=409)
    rules = store.rules_of(game)
    Round.objects.filter(game=game).delete()
    now = timezone.now()
    publics = []
    tallies = [0] * game.seat_count
    wins = [0] * game.seat_count
    for number, scores in enumerate(rounds, start=1):
        best = max(scores)
        leaders = [i for i, v in enumerate(scores) if v == best]
        tallies = [t + v for t, v in zip(tallies, scores, strict=True)]
        for i in leaders:
            wins[i] += 1
        publics.append(
            {"round": number, "scores": scores, "tallies": tallies, "round_winners": leaders}
        )
    _record_rounds(game, publics, now)
    game.round_number = len(rounds) + (winners is None)
    game.version = len(rounds)
    if winners is None:
        game.status = Game.Status.ACTIVE
        game.finished_at = None
        game.winners = []
        Seat.objects.filter(game=game).update(
            place=None, tally=None, round_wins=None, is_winner=False
        )
    else:
        table = compile_rules(rules)
        end = {
            "winners": list(winners),
            "ranking": ranking(table, tuple(tallies), tuple(wins), winners, 0),
        }
        _record_end(game, end, now)
    game.save()
    _after_commit(game)
    return game


# --- internals ------------------------------------------------------------------------


def _locked(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise DomainError("not_found", "No such game.", status=404) from None


def _require_open(game: Game) -> None:
    if game.status != Game.Status.OPEN:
        raise DomainError("game_not_open", "The table has already started.", status=409)


def _moved(game: Game) -> DomainError:
    """Why a guarded write found nothing to write: the game, read again, is gone, not
    active, or at another version than the one the write was for."""
    try:
        game.refresh_from_db()
    except Game.DoesNotExist:
        return DomainError("not_found", "No such game.", status=404)
    if game.status != Game.Status.ACTIVE:
        try:
            _require_active(game)
        except DomainError as error:
            return error
    return _stale(game)


def _stale(game: Game) -> DomainError:
    return DomainError(
        "stale_version",
        f"The game is at version {game.version}: decide again.",
        {"version": game.version},
        status=409,
    )


def _require_active(game: Game) -> None:
    if game.status == Game.Status.OPEN:
        raise DomainError("game_not_started", "The game has not started yet.", status=409)
    if game.status != Game.Status.ACTIVE:
        raise DomainError("game_over", "The game has ended.", status=409)


def _replayed(earlier: Event, seat: Seat, user: User) -> ActionResult:
    if earlier.actor_id != user.pk:
        raise DomainError(
            "idempotency_key_reused", "That Idempotency-Key belongs to another request.", status=409
        )
    return ActionResult(seat.game, seat, earlier, replayed=True)


def _record(
    game: Game,
    state: State,
    new_state: State,
    events: eventlog.PublicEvents,
    *,
    seat: Seat,
    actor: User | None,
    action: dict[str, Any],
    code: int,
    key: str | None = None,
    origin: str = "api",
    seat_fields: Sequence[str] = (),
) -> Event:
    """Log an applied action with every derived row, in one guarded write: the game row,
    its snapshot, round scores and final places, and the acting ``seat``'s
    ``seat_fields`` (set by the caller) and time bank. Raises ``stale_version`` or
    ``game_over`` (nothing written) if the game is no longer at ``state``'s version."""
    now = timezone.now()
    if _spend_time(game, seat, state, now):
        seat_fields = (*seat_fields, "time_bank_ms")
    event = Event(
        game=game,
        seq=new_state.version,
        seat=seat.number,
        actor=actor,
        action=action,
        action_code=code,
        public_events=list(events),
        idempotency_key=key or "",
        origin=origin,
        created_at=now,
    )
    rounds = [public for public in events if public["type"] == "round_end"]
    ranking = None
    for public in events:
        if public["type"] == "game_end":
            _end_fields(game, public, now)
            ranking = public["ranking"]
    bank = None if new_state.over else _set_decision(game, new_state, now)
    game.version = new_state.version
    snapshot = store.snapshot_bytes(new_state)
    written = eventlog.append(
        game,
        state.version,
        event,
        fields=PROGRESS_FIELDS,
        snapshot=snapshot,
        publics=rounds,
        ranking=ranking,
        seat=(seat, seat_fields) if seat_fields else None,
    )
    if not written:
        raise _moved(game)
    store.saved(game, new_state, snapshot)
    _after_commit(game, new_state, bank, [_entry(event)])
    return event


def _spend_time(game: Game, seat: Seat, state: State, now: datetime) -> bool:
    """Charge time beyond the per-decision limit to the seat's time bank; whether it did."""
    if game.decision_seconds is None or game.deadline is None or state.to_act != seat.number:
        return False
    started = game.deadline - timedelta(
        seconds=game.decision_seconds, milliseconds=seat.time_bank_ms or 0
    )
    over_ms = int((now - started).total_seconds() * 1000) - game.decision_seconds * 1000
    if over_ms > 0 and seat.time_bank_ms:
        seat.time_bank_ms = max(0, seat.time_bank_ms - over_ms)
        return True
    return False


def _set_decision(game: Game, state: State, now: datetime) -> int | None:
    """Show the pending decision on the game row; returns the acting seat's time bank."""
    game.to_act = state.to_act
    game.decision_kind = DECISION_NAMES[state.kind]
    game.round_number = state.round
    game.deadline = None
    if game.decision_seconds is None and game.time_bank_seconds is None:
        return None  # untimed: no seat has a bank
    bank = (
        Seat.objects.filter(game=game, number=state.to_act)
        .values_list("time_bank_ms", flat=True)
        .first()
    )
    if game.decision_seconds is not None:
        game.deadline = now + timedelta(seconds=game.decision_seconds, milliseconds=bank or 0)
    return bank


def _record_rounds(game: Game, publics: list[dict[str, Any]], now: datetime) -> None:
    """Round and RoundScore rows for these round_end events (one statement: eventlog)."""
    eventlog.rounds_append(game.pk, publics, now)


def _record_end(game: Game, public: dict[str, Any], now: datetime) -> None:
    """The engine's game_end event carries the winners and every seat's place."""
    _end_fields(game, public, now)
    eventlog.places_set(game.pk, public["ranking"])  # one UPDATE, not the ORM's CASE chain


def _end_fields(game: Game, public: dict[str, Any], now: datetime) -> None:
    """The game row's side of a game_end event (the seats' side is eventlog.places_set)."""
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.winners = public["winners"]
    game.end_reason = end_reason(public)
    game.to_act = None
    game.decision_kind = ""
    game.deadline = None


def end_reason(public: dict[str, Any]) -> str:
    """A finished game's ``end_reason`` from its game_end event: ``resignations`` when
    seats resigned and one seat was left to win, else ``finished``."""
    resigned = any(row["resigned"] for row in public["ranking"])
    return "resignations" if resigned and len(public["winners"]) == 1 else "finished"


def _entry(event: Event) -> dict[str, Any]:
    """A log entry as clients see it: never the action, only what everyone saw."""
    return {"seq": event.seq, "seat": event.seat, "events": event.public_events}


def _after_commit(
    game: Game,
    state: State | None = None,
    bank: int | None = None,
    entries: list[dict[str, Any]] | None = None,
) -> None:
    """Once the change commits: announce it (games.feed lines, built now from the rows and
    state this transaction wrote), schedule the new decision's deadline, and if a bot
    seat is to act, tell its player (games.seating)."""
    game_id, version, deadline = game.pk, game.version, game.deadline
    status = game.status
    bot_to_act = status == Game.Status.ACTIVE and game.to_act in game.bot_seats
    update = feed.update_line(game, entries or ())
    decision = end = None
    if state is not None and game.status == Game.Status.ACTIVE and game.to_act is not None:
        body = feed.decision_line(game_id, state, deadline=deadline, time_bank_ms=bank)
        decision = (game.to_act, body)
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        end = (game.seat_count, feed.end_line(game))

    def announce() -> None:  # best-effort both: the change has committed (cya_site.dispatch)
        if end is not None:
            metrics.GAMES_ENDED.labels(status).inc()
            signals.game_ended.send_robust(sender=Game, game_id=game_id)  # errors logged
        notify.publish(game_id, (version, status), update, decision, end)
        if deadline is not None:
            from games.tasks import enforce_deadline

            dispatch.send(enforce_deadline, (game_id, version), eta=deadline)
        if bot_to_act:
            seating.players().turn(game_id, version)

    transaction.on_commit(announce)
