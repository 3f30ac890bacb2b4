"""``manage.py verify_games``: finished games replay to what is stored, or it says what differs."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta

import orjson
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from accounts.models import User
from games import services, store
from games.engine import RuleSet, State, action_to_json, legal_actions
from games.engine.actions import resign as resign_action
from games.engine.recorded import outcome
from games.models import Event, Game, GameSnapshot, Playout, RoundScore, Seat
from tests.conftest import ROOT, _test_database_url

QUICK = RuleSet.preset("2021", seats=3, ending="quick")


def _table(players: list[User], staff: User, seed: int) -> Game:
    game = services.game_create(by=players[0], rules=QUICK)
    for user in players[1:]:
        services.game_join(game=game, user=user)
    return services.game_start(game=game, by=staff, seed=seed)


def _random(seed: int) -> Callable[[State], int]:
    rng = random.Random(seed)
    return lambda state: rng.choice(legal_actions(state))


def play_by_actions(players: list[User], staff: User, seed: int) -> Game:
    """A game whose every action was sent on its own (one ``Event`` row each)."""
    game = _table(players, staff, seed)
    choose = _random(seed)
    while game.status == Game.Status.ACTIVE:
        state = store.load_state(game)
        code = choose(state)
        result = services.action_submit(
            game_id=game.pk,
            user=players[state.to_act],
            action=action_to_json(code, state.rules.edition),
            version=state.version,
        )
        game = result.game
    return game


def play_in_process(players: list[User], staff: User, seed: int) -> Game:
    """A game of in-process seats, written as one ``Playout`` row."""
    game = _table(players, staff, seed)
    return services.actions_record(game=game, choose=_random(seed), origin=Event.Origin.BUILTIN)


def verify(*args: str) -> tuple[str, int]:
    """Run the command: what it printed, and the exit status it asks for."""
    out = io.StringIO()
    try:
        call_command("verify_games", *args, stdout=out)
    except CommandError as error:
        return out.getvalue(), error.returncode
    return out.getvalue(), 0


@pytest.fixture
def players(alice: User, bob: User, carol: User) -> list[User]:
    """The three players of every table here, by seat."""
    return [alice, bob, carol]


@pytest.fixture
def by_actions(players: list[User], staff: User) -> Game:
    """A finished game of three people, played action by action."""
    return play_by_actions(players, staff, seed=3)


@pytest.fixture
def in_process(players: list[User], staff: User) -> Game:
    """A finished game of three in-process seats, written as one playout."""
    return play_in_process(players, staff, seed=4)


def test_finished_games_that_match_their_logs_verify_with_exit_zero(
    by_actions: Game, in_process: Game, players: list[User], staff: User
) -> None:
    _table(players, staff, seed=5)  # still being played: not checked
    resigned = _table(players, staff, seed=6)
    for user in players[1:]:
        services.game_resign(game=resigned, user=user)
    resigned.refresh_from_db()
    assert (resigned.status, resigned.end_reason) == ("finished", "resignations")

    output, status = verify()

    assert status == 0, output
    assert output.splitlines() == ["verified 3 games, 0 mismatches"]


def test_recorded_games_are_skipped_and_said_to_be(
    by_actions: Game, players: list[User], staff: User
) -> None:
    recorded = services.recorded_game_create(by=staff, rules=QUICK, players=list(players))
    scored = outcome(QUICK, [[100_000, 50_000, 0]])
    assert scored.winners == (0,)  # the quick ending: one round
    services.recorded_rounds_set(game=recorded, scored=scored)

    output, status = verify()

    assert status == 0, output
    assert output.splitlines()[0] == "verified 1 game, 0 mismatches"
    assert output.splitlines()[1].startswith("skipped 1 recorded game: played at real tables")


def _result(game: Game, number: int) -> tuple[int, int, int]:
    """A seat's id, final place and final tally."""
    seat = Seat.objects.get(game=game, number=number)
    assert seat.place is not None
    assert seat.tally is not None
    return seat.pk, seat.place, seat.tally


def _corrupt_tally(game: Game) -> str:
    pk, _, tally = _result(game, 1)
    Seat.objects.filter(pk=pk).update(tally=tally + 50_000)
    return f"game {game.pk} seat 1 tally: stored {tally + 50_000}, replayed {tally}"


def _corrupt_place(game: Game) -> str:
    pk, place, _ = _result(game, 2)
    Seat.objects.filter(pk=pk).update(place=place % 3 + 1)
    return f"game {game.pk} seat 2 place: stored {place % 3 + 1}, replayed {place}"


def _corrupt_version(game: Game) -> str:
    Game.objects.filter(pk=game.pk).update(version=game.version + 1)
    return f"game {game.pk} version: stored {game.version + 1}, replayed {game.version}"


def _corrupt_round_score(game: Game) -> str:
    score = RoundScore.objects.get(round__game=game, round__number=1, seat__number=0)
    RoundScore.objects.filter(pk=score.pk).update(dollars=score.dollars + 10_000)
    return (
        f"game {game.pk} round 1 seat 0 dollars: stored {score.dollars + 10_000}, "
        f"replayed {score.dollars}"
    )


def _corrupt_winners(game: Game) -> str:
    wrong = [n for n in range(3) if n not in game.winners][:1]
    Game.objects.filter(pk=game.pk).update(winners=wrong)
    return f"game {game.pk} winners: stored {wrong}, replayed {game.winners}"


def _corrupt_snapshot(game: Game) -> str:
    snapshot = GameSnapshot.objects.get(game=game)
    state = orjson.loads(snapshot.state)
    tallies = state["tallies"]
    state["tallies"] = [t + 5_000 for t in tallies]
    GameSnapshot.objects.filter(pk=snapshot.pk).update(state=orjson.dumps(state))
    return f"game {game.pk} snapshot tallies: stored {state['tallies']}, replayed {tallies}"


@pytest.mark.parametrize(
    "corrupt",
    [
        _corrupt_tally,
        _corrupt_place,
        _corrupt_version,
        _corrupt_round_score,
        _corrupt_winners,
        _corrupt_snapshot,
    ],
)
@pytest.mark.parametrize("play", [play_by_actions, play_in_process])
def test_a_corrupted_stored_value_is_printed_and_exits_one(
    play: Callable[[list[User], User, int], Game],
    corrupt: Callable[[Game], str],
    players: list[User],
    staff: User,
) -> None:
    game = play(players, staff, 8)
    play(players, staff, 9)  # a clean game beside it
    expected = corrupt(game)

    output, status = verify()

    assert status == 1
    lines = output.splitlines()
    assert lines == [expected, "verified 2 games, 1 mismatch"], output


def test_a_changed_event_public_record_is_printed(by_actions: Game) -> None:
    event = Event.objects.get(game=by_actions, seq=5)
    forged = [{**event.public_events[0], "forged": True}, *event.public_events[1:]]
    Event.objects.filter(pk=event.pk).update(public_events=forged)

    output, status = verify()

    assert status == 1
    assert output.splitlines()[0].startswith(f"game {by_actions.pk} event 5 public_events: stored")
    assert output.splitlines()[-1] == "verified 1 game, 1 mismatch"


def test_an_action_the_engine_refuses_is_printed_where_the_log_breaks(by_actions: Game) -> None:
    # seat 0 may resign at seq 1 (its first decision), but not again at seq 2
    code = resign_action(0)
    Event.objects.filter(game=by_actions, seq__in=(1, 2)).update(action_code=code)

    output, status = verify()

    assert status == 1
    assert output.splitlines() == [
        f"game {by_actions.pk} log 2: stored {code}, replayed 'refused: already_resigned'",
        "verified 1 game, 1 mismatch",
    ]


def test_an_entry_after_the_end_of_the_game_is_printed(in_process: Game) -> None:
    playout = Playout.objects.get(game=in_process)
    extra = playout.codes[-1]
    Playout.objects.filter(pk=playout.pk).update(codes=[*playout.codes, extra])

    output, status = verify()

    assert status == 1
    assert output.splitlines() == [
        f"game {in_process.pk} log {in_process.version + 1}: stored {extra}, "
        "replayed 'refused: game_over'",
        "verified 1 game, 1 mismatch",
    ]


def test_a_gap_in_the_log_is_printed(by_actions: Game) -> None:
    Event.objects.filter(game=by_actions, seq=7).delete()

    output, status = verify()

    assert status == 1
    assert output.splitlines()[0] == (
        f"game {by_actions.pk} log 7: stored 'no entry', replayed 'an action code'"
    )


def test_an_entry_written_twice_is_printed(in_process: Game) -> None:
    Event.objects.create(game=in_process, seq=5, action_code=0, origin=Event.Origin.API)

    output, status = verify()

    assert status == 1
    assert output.splitlines()[0] == (
        f"game {in_process.pk} log 5: stored '2 entries', replayed '1 entry'"
    )


def test_game_picks_the_games_to_check(by_actions: Game, in_process: Game) -> None:
    Seat.objects.filter(game=by_actions).update(tally=None)

    output, status = verify("--game", str(in_process.pk))

    assert (output, status) == ("verified 1 game, 0 mismatches\n", 0)


def test_game_refuses_ids_it_cannot_check_with_exit_two(
    by_actions: Game, players: list[User], staff: User
) -> None:
    active = _table(players, staff, seed=5)

    with pytest.raises(CommandError) as refused:
        call_command(
            "verify_games", "--game", str(by_actions.pk), "--game", str(active.pk), "--game", "0"
        )

    assert refused.value.returncode == 2
    assert str(refused.value) == f"game {active.pk} is active, not finished; game 0 does not exist"


def test_since_checks_only_games_finished_from_then(by_actions: Game, in_process: Game) -> None:
    Game.objects.filter(pk=by_actions.pk).update(finished_at=timezone.now() - timedelta(days=3))
    Seat.objects.filter(game=by_actions).update(place=None)  # old, and not looked at
    day = (timezone.localdate() - timedelta(days=1)).isoformat()

    assert verify("--since", day) == ("verified 1 game, 0 mismatches\n", 0)
    with pytest.raises(CommandError, match="--since"):
        call_command("verify_games", "--since", "yesterday")


@pytest.mark.django_db(transaction=True)
def test_the_process_exits_one_when_a_game_differs(players: list[User], staff: User) -> None:
    game = play_in_process(players, staff, seed=4)
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    command = [sys.executable, "manage.py", "verify_games"]

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
        )

    assert run().returncode == 0
    Seat.objects.filter(game=game, number=0).update(round_wins=99)
    done = run()
    assert done.returncode == 1, done.stderr
    assert f"game {game.pk} seat 0 round_wins: stored 99" in done.stdout
    assert "mismatches found in 1 game" in done.stderr
