"""Run by tests/bots/test_sqlite_batch.py in a child process on a fresh SQLite file
(``python -m tests.bots.sqlite_match``): a whole ladder match of built-ins, checked as the
PostgreSQL tests check it, and a lease taken, held and taken again. Prints ok."""

from __future__ import annotations

import django
from django.core.management import call_command


def main() -> None:
    django.setup()
    call_command("migrate", verbosity=0)

    from bots import runner, services
    from bots.validation import builtin_versions
    from cya_site.errors import DomainError
    from games import services as game_services
    from games import store
    from games.engine import RuleSet, legal_actions, replay
    from games.models import Event, Game, Playout, Round, Seat

    match = services.match_create(versions=builtin_versions(), seed=11)
    stale = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    runner.run_match(match)  # its games written in one batch; the match's own rows: below
    for game in Game.objects.filter(match_game__match=match):
        assert game.status == "finished"
        entries = store.entries(game)
        assert [e.seq for e in entries] == list(range(game.version + 1))
        codes = store.codes(game, 0, game.version)
        assert Playout.objects.get(game=game).codes == codes
        assert game.seed is not None
        final = replay(RuleSet.from_json(game.rules), game.seed, codes)
        assert list(final.winners) == game.winners
        assert entries[-1].public_events[-1]["type"] == "game_end"
        assert game.round_number == Round.objects.filter(game=game).count()
        assert not Seat.objects.filter(game=game, place__isnull=True).exists()
        store.forget(game.pk)
        assert store.load_state(game).version == game.version
    try:  # read before the match was played: at version 0, now moved on
        game_services.actions_record(
            game=stale, choose=lambda state: legal_actions(state)[0], origin=Event.Origin.BUILTIN
        )
    except DomainError as error:
        refused = error.code
    else:
        refused = "nothing: a stale batch was written"
    assert refused == "game_over", refused
    assert Playout.objects.filter(game=stale).count() == 1
    leases_taken_held_and_let_go()
    print("ok")


def leases_taken_held_and_let_go() -> None:
    """A lease's row on SQLite: taken, refused while held, taken again once let go (the
    one statement of bots.persistence.leases._take_free, on SQLite's dates)."""
    from datetime import timedelta

    from django.utils import timezone

    from bots.persistence import leases as lease_rows

    now, ttl, second = timezone.now(), timedelta(seconds=30), timedelta(seconds=1)
    taken = lease_rows.take(1, 2, "one", now, ttl)
    held = lease_rows.take(1, 2, "two", now + second, ttl)
    lease_rows.release(1, 2, 1, now + 2 * second)
    again = lease_rows.take(1, 2, "two", now + 3 * second, ttl)
    assert (taken, held, again) == (1, None, 2), (taken, held, again)


if __name__ == "__main__":
    main()
