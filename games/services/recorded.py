"""Games played with real cards at real tables: the game, and its rounds as recorded."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from cya_site.errors import DomainError
from games import store
from games.engine import RuleSet, recorded
from games.models import Game
from games.services import announce, checks, progress


@transaction.atomic
def recorded_game_create(*, by: User, rules: RuleSet, players: list[User | None]) -> Game:
    """A game played with real cards, whose rounds are recorded (one entry per seat;
    None for a guest without an account)."""
    if len(players) != rules.seats:
        raise DomainError("wrong_seat_count", f"The rules seat {rules.seats}, not {len(players)}.")
    game = Game(
        created_by=by,
        mode=Game.Mode.RECORDED,
        status=Game.Status.ACTIVE,
        rules=rules.to_json(),
        seat_count=rules.seats,
        started_at=timezone.now(),
        round_number=1,
    )
    return store.game_open(game, players)


@transaction.atomic
def recorded_rounds_set(*, game: Game, scored: recorded.Outcome) -> Game:
    """Bring a recorded game's derived rows in line with its effective rounds, as the
    engine scored them (``games.engine.recorded.outcome``, worked out once by the caller).

    Rounds, round scores, status and final places are derived from the score ledger
    (tournaments), so they are rebuilt whole; the ledger itself is never rewritten.
    """
    game = checks.locked(game.pk)
    if game.mode != Game.Mode.RECORDED:
        raise DomainError("not_recorded", "Only a recorded game takes recorded rounds.", status=409)
    now = timezone.now()
    publics = [
        {
            "round": r.number,
            "scores": list(r.scores),
            "tallies": list(r.tallies),
            "round_winners": list(r.leaders),
        }
        for r in scored.rounds
    ]
    game.round_number = len(scored.rounds) + (scored.winners is None)
    game.version = len(scored.rounds)
    if scored.winners is None:
        game.status = Game.Status.ACTIVE
        game.finished_at = None
        game.winners = []
        store.rounds_replace(game, publics, None, now)
    else:
        places = list(scored.ranking)
        winners = list(scored.winners)
        progress.end_fields(game, {"winners": winners, "ranking": places}, now)
        store.rounds_replace(game, publics, places, now)
    announce.after_commit(game)
    return game
