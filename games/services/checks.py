"""What every service checks before it changes a game, and the errors it answers with."""

from __future__ import annotations

from cya_site.errors import DomainError
from games.models import Game


def locked(game_id: int) -> Game:
    """The game row, locked until the transaction ends; ``not_found`` if there is none."""
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise DomainError("not_found", "No such game.", status=404) from None


def require_open(game: Game) -> None:
    """Refuse (``game_not_open``) unless the table has not started."""
    if game.status != Game.Status.OPEN:
        raise DomainError("game_not_open", "The table has already started.", status=409)


def require_active(game: Game) -> None:
    """Refuse unless the game is being played here: ``recorded_game`` (it is played with
    real cards: its rounds are entered on a score sheet), ``game_not_started``,
    ``game_over``."""
    if game.mode == Game.Mode.RECORDED:
        raise DomainError(
            "recorded_game",
            "This game is played with real cards: its rounds are entered on its score sheet.",
            status=409,
        )
    if game.status == Game.Status.OPEN:
        raise DomainError("game_not_started", "The game has not started yet.", status=409)
    if game.status != Game.Status.ACTIVE:
        raise DomainError("game_over", "The game has ended.", status=409)


def stale(game: Game) -> DomainError:
    """``stale_version``: the game is at another version than the one a change was for."""
    return DomainError(
        "stale_version",
        f"The game is at version {game.version}: decide again.",
        {"version": game.version},
        status=409,
    )


def moved(game: Game) -> DomainError:
    """Why a guarded write found nothing to write: the game, read again, is gone, not
    active, or at another version than the one the write was for."""
    try:
        game.refresh_from_db()
    except Game.DoesNotExist:
        return DomainError("not_found", "No such game.", status=404)
    if game.status != Game.Status.ACTIVE:
        try:
            require_active(game)
        except DomainError as error:
            return error
    return stale(game)
