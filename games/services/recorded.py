"""Games played with real cards at real tables: the game, and its rounds as recorded."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from cya_site.errors import DomainError
from games import store
from games.engine import RuleSet
from games.engine.rules import compile_rules
from games.engine.scoring import ranking
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
def recorded_rounds_set(
    *, game: Game, rounds: list[list[int]], winners: tuple[int, ...] | None
) -> Game:
    """Bring a recorded game's derived rows in line with its effective rounds.

    Rounds, round scores, status and final places are derived from the score ledger
    (tournaments), so they are rebuilt whole; the ledger itself is never rewritten.
    """
    game = checks.locked(game.pk)
    if game.mode != Game.Mode.RECORDED:
        raise DomainError("not_recorded", "Only a recorded game takes recorded rounds.", status=409)
    rules = store.rules_of(game)
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
    game.round_number = len(rounds) + (winners is None)
    game.version = len(rounds)
    if winners is None:
        game.status = Game.Status.ACTIVE
        game.finished_at = None
        game.winners = []
        store.rounds_replace(game, publics, None, now)
    else:
        places = ranking(compile_rules(rules), tuple(tallies), tuple(wins), winners, 0)
        progress.end_fields(game, {"winners": list(winners), "ranking": places}, now)
        store.rounds_replace(game, publics, places, now)
    announce.after_commit(game)
    return game
