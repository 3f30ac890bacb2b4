"""Both databases alike: games.store's PostgreSQL statements and their ORM twins write the
same rows.

The suite's database is PostgreSQL; ``make run`` uses SQLite, where every write of the
seam takes its ORM twin (games.store.vendor). Each scenario here is played twice on the
same database, once on each path (``vendor.orm_fallback`` forces the twins), from the
same seed and with the same choices, and every row the games wrote is compared: the log
(both row shapes), the game row, the snapshot, rounds and scores, and the seats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from cya_site.errors import DomainError
from games import services, store
from games.engine import RuleSet, State, action_to_json, legal_actions, recorded, replay
from games.models import Event, Game, GameSnapshot, Round, Seat
from games.store import vendor

pytestmark = pytest.mark.django_db

Rows = dict[str, Any]


def stored(game: Game) -> Rows:
    """Every row a game's play wrote, without the keys and clocks that differ by run."""
    game.refresh_from_db()
    snapshot = GameSnapshot.objects.filter(game=game).first()
    return {
        "game": (game.status, game.version, game.to_act, game.decision_kind, game.round_number)
        + (game.winners, game.end_reason, game.finished_at is not None),
        "events": [
            (e.seq, e.seat, e.actor_id, e.action, e.action_code, e.public_events, e.origin)
            + (e.idempotency_key,)
            for e in game.events.order_by("seq")
        ],
        "playouts": list(game.playouts.order_by("first_seq").values_list("first_seq", "codes")),
        "log": [tuple(entry)[:-1] for entry in store.entries(game)],  # as one, read back
        "snapshot": None if snapshot is None else (snapshot.version, bytes(snapshot.state)),
        "rounds": [
            (
                r.number,
                sorted((s.seat.number, s.dollars, s.tally, s.won_round) for s in r.scores.all()),
            )
            for r in Round.objects.filter(game=game).order_by("number")
        ],
        "seats": [
            (s.number, s.user_id, s.place, s.tally, s.round_wins, s.is_winner)
            + (s.resigned_at is not None, s.time_bank_ms)
            for s in Seat.objects.filter(game=game).order_by("number")
        ],
    }


def on_both_paths(scenario: Callable[[], Game]) -> tuple[Rows, Rows]:
    """The rows ``scenario`` leaves on PostgreSQL's path, then on the ORM's."""
    native = stored(scenario())
    with vendor.orm_fallback():
        assert not vendor.native()
        twin = stored(scenario())
    return native, twin


def test_the_suite_runs_the_native_path_on_postgresql(db: None) -> None:
    assert vendor.native() is (connection.vendor == "postgresql")
    assert connection.vendor == "postgresql", "the suite's database: the twins are forced"


def test_a_game_of_people_with_retries_and_a_resignation_is_stored_alike(
    alice: User, bob: User, staff: User
) -> None:
    people = {0: alice, 1: bob}

    def scenario() -> Game:
        game = services.game_create(
            by=alice, rules=RuleSet.preset("2021", seats=2), time_bank_seconds=60
        )
        services.game_join(game=game, user=bob)
        game = services.game_start(game=game, by=staff, seed=5)
        for version in range(12):
            state = store.load_state(game)
            user = people[state.to_act]
            action = action_to_json(legal_actions(state)[-1], "2021")
            key = f"k{version}"  # unique per game
            done = services.action_submit(
                game_id=game.pk, user=user, action=action, version=version, key=key
            )
            again = services.action_submit(
                game_id=game.pk, user=user, action=action, version=version, key=key
            )
            assert (done.replayed, again.replayed) == (False, True)
            assert again.event.pk == done.event.pk
            with pytest.raises(DomainError) as stale:
                services.action_submit(game_id=game.pk, user=user, action=action, version=version)
            assert stale.value.code == "stale_version"
            game = done.game
        services.game_resign(game=game, user=bob)
        return game

    native, twin = on_both_paths(scenario)

    assert native["game"][:2] == ("finished", 13)
    assert native["seats"][1][2] == 2  # bob resigned: ranked last
    assert native["seats"][1][6] is True
    codes = [e[4] for e in native["events"][1:]]
    assert list(replay(RuleSet.preset("2021", seats=2), 5, codes).winners) == [0]
    assert native == twin


def test_built_in_games_written_in_one_batch_are_stored_alike(
    alice: User, bob: User, carol: User, staff: User
) -> None:
    def first_legal(state: State) -> int:
        return legal_actions(state)[0]

    def scenario() -> Game:
        games = []
        for seed in (3, 4):
            game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
            services.game_join(game=game, user=bob)
            services.game_join(game=game, user=carol)
            games.append(services.game_start(game=game, by=staff, seed=seed))
        services.actions_record_all([(g, first_legal) for g in games], origin=Event.Origin.BUILTIN)
        assert Game.objects.get(pk=games[0].pk).status == Game.Status.FINISHED
        stored_first = stored(games[0])
        assert stored_first["playouts"]
        return games[1]

    native, twin = on_both_paths(scenario)

    assert native["game"][0] == "finished"
    assert [e[0] for e in native["log"]] == list(range(native["game"][1] + 1))
    assert native == twin


def test_a_batch_with_a_game_that_moved_on_writes_the_others_alike(
    alice: User, bob: User, staff: User
) -> None:
    def first_legal(state: State) -> int:
        return legal_actions(state)[0]

    moved_on: list[Rows] = []

    def scenario() -> Game:
        games = []
        for seed in (8, 9):
            game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
            services.game_join(game=game, user=bob)
            games.append(services.game_start(game=game, by=staff, seed=seed))
        stale = games[0]  # read at version 0, then moved on by an action
        state = store.load_state(stale)
        action = action_to_json(first_legal(state), "2021")
        user = (alice, bob)[state.to_act]
        services.action_submit(game_id=stale.pk, user=user, action=action, version=0)
        with pytest.raises(DomainError) as refused:
            services.actions_record_all(
                [(g, first_legal) for g in games], origin=Event.Origin.BUILTIN
            )
        assert refused.value.code == "stale_version"
        moved_on.append(stored(stale))
        return games[1]

    native, twin = on_both_paths(scenario)

    assert native["game"][0] == "finished"
    assert native == twin
    assert moved_on[0]["game"][1] == moved_on[1]["game"][1] == 1  # nothing more written
    assert moved_on[0]["playouts"] == moved_on[1]["playouts"] == []


def test_recorded_rounds_and_places_are_stored_alike(alice: User, bob: User, carol: User) -> None:
    rounds = [[100000, 50000, 0], [0, 200000, 150000]]

    rules = RuleSet.preset("2021", seats=3, ending="highest_after_n", ending_rounds=2)

    def scenario() -> Game:
        game = services.recorded_game_create(by=alice, rules=rules, players=[alice, bob, carol])
        game = services.recorded_rounds_set(game=game, scored=recorded.outcome(rules, rounds[:1]))
        return services.recorded_rounds_set(game=game, scored=recorded.outcome(rules, rounds))

    native, twin = on_both_paths(scenario)

    assert native["rounds"] == [
        (1, [(0, 100000, 100000, True), (1, 50000, 50000, False), (2, 0, 0, False)]),
        (2, [(0, 0, 100000, False), (1, 200000, 250000, True), (2, 150000, 150000, False)]),
    ]
    assert [seat[2] for seat in native["seats"]] == [3, 1, 2]
    assert native == twin
