"""Match helpers: short rules for fast matches, and what every played match must show in
the database, checked from the rows alone.

The engine state before each logged action is rebuilt from the game's seed and its log
(not from the platform's cache), so a check such as "this fallback was the engine's safe
default" compares the stored action with what the engine says, independently.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import psycopg

from accounts.models import User
from bots import runner
from bots.models import Match, MatchEntry, RatingChange, SeatControl
from games import services as game_services
from games import store
from games.engine import RuleSet, State, action_to_json, default_action
from games.models import Game
from tests.conftest import _test_database_url


def quick(seats: int) -> RuleSet:
    """The 2021 rules with the quick ending: one round a game, so matches stay short."""
    return replace(RuleSet.preset("2021", seats=seats), ending="quick")


def states_before(game: Game) -> Iterator[tuple[store.LogEntry, State]]:
    """Each logged action of ``game`` with the engine state it was applied to."""
    game.refresh_from_db()
    state = store.initial_state(game)
    for entry in store.entries(game, after=0):
        yield entry, state
        state = store.replay_one(state, entry.action_code)


def state_at(game: Game, version: int) -> State:
    """The engine state of ``game`` at ``version``, rebuilt from its seed and log."""
    for _, state in states_before(game):
        if state.version == version:
            return state
    raise AssertionError(f"game {game.pk} never was at version {version}")


def assert_gap_free_log(game: Game) -> None:
    """The log is 0, 1, ..., version: one entry per version, none lost or doubled."""
    game.refresh_from_db()
    seqs = [entry.seq for entry in store.entries(game)]
    assert seqs == list(range(game.version + 1)), (game.pk, seqs[-5:], game.version)


def assert_finished_once(match: Match) -> None:
    """Finished, every game finished with a gap-free log, one rating change per entry."""
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, (match.status, match.void_reason)
    games = Game.objects.filter(match_game__match=match)
    assert games.count() == (match.entries.count() if match.duplicate else 1)
    for game in games:
        assert game.status == Game.Status.FINISHED
        assert_gap_free_log(game)
    entries = MatchEntry.objects.filter(match=match)
    assert all(e.place is not None for e in entries)
    if match.kind == Match.Kind.LADDER:
        assert match.rated_at is not None
        changes = RatingChange.objects.filter(match=match)
        assert sorted(changes.values_list("version_id", flat=True)) == sorted(
            entries.values_list("version_id", flat=True)
        )


def control_of(match: Match, version_id: int, rotation: int = 0) -> SeatControl:
    """The seat control of a version in one game of the match."""
    return SeatControl.objects.select_related("seat").get(
        seat__game__match_game__match=match,
        seat__game__match_game__rotation=rotation,
        version_id=version_id,
    )


def seat_origins(control: SeatControl) -> list[str]:
    """The origin of every action logged for the control's seat, in order."""
    game = Game.objects.get(pk=control.seat.game_id)
    return [e.origin for e in store.entries(game, after=0) if e.seat == control.seat.number]


def play_to_the_end(game: Game, person: User) -> Game:
    """The person answers with the safe default; each bot turn is played as the task
    would play it."""
    for _ in range(5000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        if game.to_act in game.bot_seats:
            assert runner.play_turn(game.pk, game.version) == "played"
        else:
            state = store.load_state(game)
            game_services.action_submit(
                game_id=game.pk,
                user=person,
                action=action_to_json(default_action(state), state.rules.edition),
                version=game.version,
            )
    raise AssertionError("the game did not end")


@contextmanager
def advisory_held_elsewhere(namespace: int, key: int) -> Iterator[None]:
    """The advisory lock held by another session (what ``single_flight`` meets)."""
    with psycopg.connect(_test_database_url(), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s::int4, %s::int4)", [namespace, key])
        yield
        # let go before closing: a closed connection's server process ends (and drops
        # its locks) a moment after the client has gone on
        other.execute("SELECT pg_advisory_unlock(%s::int4, %s::int4)", [namespace, key])


@contextmanager
def held_elsewhere(namespace: int, key: int) -> Iterator[None]:
    """The lease held by another run, as a live worker would hold it: its row, committed
    from another connection, with an expiry an hour away; run out afterwards."""
    with psycopg.connect(_test_database_url(), autocommit=True) as other:
        other.execute(
            "INSERT INTO bots_lease (namespace, key, owner, token, expires_at)"
            " VALUES (%s, %s, 'elsewhere', 1, now() + interval '1 hour')"
            " ON CONFLICT (namespace, key) DO UPDATE SET owner = 'elsewhere',"
            " token = bots_lease.token + 1, expires_at = EXCLUDED.expires_at",
            [namespace, key],
        )
        yield
        other.execute(
            "UPDATE bots_lease SET expires_at = now() WHERE namespace = %s AND key = %s",
            [namespace, key],
        )


def take_over(namespace: int, key: int) -> None:
    """Another run takes the lease over, as one does once the holder's time ran out
    (its renewals lost to a database outage): a new owner, the fencing token raised."""
    with psycopg.connect(_test_database_url(), autocommit=True) as other:
        taken = other.execute(
            "UPDATE bots_lease SET owner = 'took-over', token = token + 1,"
            " expires_at = now() + interval '1 hour' WHERE namespace = %s AND key = %s",
            [namespace, key],
        )
        assert taken.rowcount == 1, "no lease to take over"


def let_go(namespace: int, key: int) -> None:
    """The lease runs out (its holder stopped renewing it)."""
    with psycopg.connect(_test_database_url(), autocommit=True) as other:
        other.execute(
            "UPDATE bots_lease SET expires_at = now() WHERE namespace = %s AND key = %s",
            [namespace, key],
        )
