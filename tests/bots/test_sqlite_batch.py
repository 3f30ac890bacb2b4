"""Games on SQLite, the database ``make run`` uses: the log writer's ORM path.

The suite's database is PostgreSQL, where an action, or a whole built-in game, is written
with one statement (games.store.append); other databases take the ORM for the same
rows. This runs, in a child process against a fresh SQLite file, a whole ladder match, and
checks there what the PostgreSQL tests check here: a gap-free log that replays to the
stored result, rounds and places written, and a stale batch refused unwritten.

A game's own rows, written action by action, by a resignation or in one batch, are not
checked here: tests/games/test_store_paths.py runs games.store's ORM path, the one SQLite
takes, beside its SQL on PostgreSQL and compares the rows.

The match's own rows (claimed, results, places, ratings, seatings) are not checked here:
tests/bots/test_persistence.py runs bots.persistence's ORM path, the one SQLite takes,
beside its SQL on PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)

    from bots import runner, services
    from bots.validation import builtin_versions
    from cya_site.errors import DomainError
    from games import store
    from games import services as game_services
    from games.engine import RuleSet, legal_actions, replay
    from games.models import Game, Playout, Round, Seat

    match = services.match_create(versions=builtin_versions(), seed=11)
    stale = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    runner.run_match(match)  # its games written in one batch; the match's own rows: below
    for game in Game.objects.filter(match_game__match=match):
        assert game.status == "finished"
        entries = store.entries(game)
        assert [e.seq for e in entries] == list(range(game.version + 1))
        codes = store.codes(game, 0, game.version)
        assert Playout.objects.get(game=game).codes == codes
        final = replay(RuleSet.from_json(game.rules), game.seed, codes)
        assert list(final.winners) == game.winners
        assert entries[-1].public_events[-1]["type"] == "game_end"
        assert game.round_number == Round.objects.filter(game=game).count()
        assert not Seat.objects.filter(game=game, place__isnull=True).exists()
        store.forget(game.pk)
        assert store.load_state(game).version == game.version
    try:  # read before the match was played: at version 0, now moved on
        game_services.actions_record(
            game=stale, choose=lambda state: legal_actions(state)[0], origin="builtin"
        )
    except DomainError as error:
        assert error.code == "game_over", error.code
    else:
        raise AssertionError("a stale batch was written")
    assert Playout.objects.filter(game=stale).count() == 1

    print("ok")
    """
)


def test_a_match_is_written_and_read_the_same_on_sqlite(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "LADDER_TABLES": "0",
    }
    env.pop("REDIS_URL", None)  # the bare machine's defaults: no broker, a local cache
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
