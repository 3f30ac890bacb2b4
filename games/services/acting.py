"""Playing: one action sent for a seat, or whole games decided in process and written at once.

An action is checked against the version the client saw, applied through the engine
(services never re-implement a rule), and appended to the log with every row it changes
in one statement that writes only if the game is still at that version
(games.store.append): the statement is the transaction, and the game row's lock is held
only while it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.db import IntegrityError
from django.utils import timezone

from accounts.models import User
from cya_site import metrics
from cya_site.errors import DomainError
from games import notify, selectors, signals, store
from games.engine import State, action_from_json, action_to_json, apply
from games.models import Event, Game, Playout, Seat
from games.services import announce, checks, progress
from games.services.progress import ActionResult


def action_submit(
    *,
    game_id: int,
    user: User,
    action: Any,
    version: int,
    key: str | None = None,
    origin: Event.Origin = Event.Origin.API,
    debug: str = "",
) -> ActionResult:
    """Apply one action for the user's seat, if it answers the decision at ``version``.

    A bot acting through the API is announced (``signals.bot_acted``, with its ``debug``
    note): its owner's decision log keeps the decision.

    A retry carrying a ``key`` (Idempotency-Key) that was already applied gets the
    original result and applies nothing. A submission for any other version than the
    current one is stale (409); an action the engine refuses gets the engine's code.

    Optimistic: the game is read without a lock and the action applied by the engine,
    then everything is written in one statement that only writes if the game is still
    at ``version`` (store.append), so no lock is held while the engine works. Of
    concurrent submissions for one decision exactly one is applied; the others find the
    version moved on (``stale_version``), or, sent with the winner's key, its result.
    """
    try:
        result = _submit(game_id, user, action, version, key, origin)
    except Exception as error:  # counted by code (DomainError's, the engine's), re-raised
        metrics.ACTIONS_REFUSED.labels(getattr(error, "code", "error")).inc()
        raise
    metrics.ACTIONS_SUBMITTED.labels(origin).inc()
    if origin == Event.Origin.API and user.is_bot and not result.replayed:
        signals.bot_acted.send(
            Game,
            game_id=game_id,
            seat=result.seat.number,
            version=version,
            action=action,
            debug=debug,
        )
    return result


def _submit(
    game_id: int, user: User, action: Any, version: int, key: str | None, origin: Event.Origin
) -> ActionResult:
    if key is None:
        seat, earlier = store.seat_at(game_id, user), None
    else:
        seat, earlier = store.seat_and_entry(game_id, user, key)
    if earlier is not None:
        return _replayed(earlier, seat, user)
    game = seat.game
    checks.require_active(game)
    if version != game.version:
        raise checks.stale(game)
    state = store.load_state(game)
    edition = state.rules.edition
    code = action_from_json(action, edition)
    new_state, events = apply(state, code, seat=seat.number)
    try:
        return progress.record(
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


def _replayed(earlier: Event, seat: Seat, user: User) -> ActionResult:
    if earlier.actor_id != user.pk:
        raise DomainError(
            "idempotency_key_reused", "That Idempotency-Key belongs to another request.", status=409
        )
    entry = store.public_entry(earlier)
    return ActionResult(seat.game, seat, earlier, entry, selectors.decision(seat.game, seat), True)


def actions_record(*, game: Game, choose: Callable[[State], int], origin: Event.Origin) -> Game:
    """Play a game from its stored version to its end, ``choose`` picking every action,
    and write it all at once: the actions as one ``Playout`` row of the log.

    For games every seat of which is decided in-process (built-in strategies). The
    playout starts from the state the log gives at ``game.version`` (store.load_state),
    and every choice is applied here, through the engine, exactly once: an illegal one
    raises before anything is written, and the log entries, rounds and places written
    are the engine's own results, never the caller's. The write is guarded by the game's
    status and version (store.append): if anything moved the game on meanwhile,
    nothing is written and it refuses (``stale_version``, ``game_over``), so the entries
    continue the log.
    """
    return actions_record_all([(game, choose)], origin=origin)[0]


def actions_record_all(
    plays: Iterable[tuple[Game, Callable[[State], int]]],
    *,
    origin: Event.Origin,
    within: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> list[Game]:
    """``actions_record`` for several games (a match's), written together in one round
    trip (store.append_all) and announced together. If one of them moved on meanwhile,
    the others are still written and announced, and it refuses for that one. ``plays``
    is drawn in order, each game played before the next is drawn (a caller may stop on
    a clock); the games played are returned.

    The writes run in ``within()`` (the caller's transaction, say, which checks first
    that it may still write: bots.leases.fenced_pipeline), entered once every game has
    been played, so it is open only while they are written; a refusal is raised in it.
    """
    played = [_play_out(game, choose, origin) for game, choose in plays]
    with within():
        written = store.append_all(played)
        with notify.batch():
            for p, ok in zip(played, written, strict=True):
                if ok:
                    announce.after_commit(p.game, p.state)  # no entries: /events/
        for p, ok in zip(played, written, strict=True):
            if not ok:
                raise checks.moved(p.game)
    return [p.game for p in played]


def _play_out(game: Game, choose: Callable[[State], int], origin: Event.Origin) -> store.Append:
    """Play ``game`` to its end in memory; the game row's new fields are set, nothing is
    written."""
    checks.require_active(game)
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
        progress.end_fields(game, ended, now)
        ranking = ended["ranking"]
    playout = Playout(game=game, first_seq=start + 1, codes=played, origin=origin, created_at=now)
    return store.Append(game, start, playout, progress.PROGRESS_FIELDS, state, rounds, ranking)
