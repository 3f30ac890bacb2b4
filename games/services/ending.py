"""Ending a decision or a game without a player's action: resigning, a deadline passing,
a staff abort; and showing a deadline that the bots' runner enforces.

Changes that name no version lock the game row (``select_for_update``) first: they apply
to whatever version the game is at when they get the lock. A decision with a deadline
gets a task (games.tasks) that applies the engine's safe default if nobody answers.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from cya_site.errors import DomainError
from games import store
from games.engine import default_action
from games.engine.actions import resign as resign_action
from games.models import Event, Game, Seat
from games.services import announce, checks, progress
from games.services.progress import ActionResult


@transaction.atomic
def game_resign(*, game: Game, user: User) -> ActionResult:
    """Leave a started game: the engine plays the seat's default actions, ranked last.

    It names no version, so it takes the game's lock: it applies to whatever version
    the game is at when it gets the lock, and nothing can move the game on meanwhile.
    """
    seat = store.seat_at(game.pk, user, lock=True)
    game = seat.game
    checks.require_active(game)
    seat.resigned_at = timezone.now()
    code = resign_action(seat.number)
    return progress.decide_for(
        game, seat, code, actor=user, origin=Event.Origin.RESIGN, seat_fields=("resigned_at",)
    )


@transaction.atomic
def decision_timeout(*, game_id: int, version: int) -> Event | datetime | None:
    """Apply the engine's safe default if the decision at ``version`` is still unanswered.

    Idempotent: a second run, or a run after the seat answered, finds the version moved
    on and does nothing (None). A run before the deadline (a clock ahead of the
    database's, an early broker) changes nothing and returns the deadline to retry at.
    """
    game = checks.locked(game_id)
    if game.status != Game.Status.ACTIVE or game.version != version or game.deadline is None:
        return None
    if timezone.now() < game.deadline:
        return game.deadline
    state = store.load_state(game)
    seat = Seat.objects.get(game=game, number=state.to_act)
    seat.time_bank_ms = 0
    code = default_action(state)
    result = progress.decide_for(
        game, seat, code, actor=None, origin=Event.Origin.TIMEOUT, seat_fields=("time_bank_ms",)
    )
    return result.event


def deadline_set(*, game: Game, version: int, deadline: datetime) -> bool:
    """Show a deadline on the pending decision (bot matches enforce theirs in the runner).

    Only the decision at ``version`` gets it: False when the game has moved on.
    """
    return store.deadline_show(game.pk, version, deadline)


@transaction.atomic
def game_abort(*, game: Game, by: User, reason: str) -> Game:
    """Void a game (staff): it ends without a result and is never rated."""
    if not by.is_staff:
        raise DomainError("permission_denied", "Only staff can abort a game.", status=403)
    game = checks.locked(game.pk)
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        raise DomainError("game_over", "The game has already ended.", status=409)
    game.status = Game.Status.ABORTED
    game.finished_at = timezone.now()
    game.end_reason = reason[:20] or "aborted"
    game.to_act = None
    game.deadline = None
    store.game_saved(game)
    announce.after_commit(game)
    return game
