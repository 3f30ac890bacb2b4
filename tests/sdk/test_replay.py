"""``cya-bot replay``: a finished ladder game, read from a live server, fed to a bot again.

The game is a real ladder game: alice's webhook bot (the SDK's example, a real process)
against bob's shark and carol's greedy, played by the match runner. ``cya-bot replay``
then runs as a bot author runs it, with only the SDK importable, against the live server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest_django.live_server_helper import LiveServer

from accounts.models import User
from bots import runner, services
from bots.models import Bot, BotVersion, Match, SeatControl
from cya_bot import replay as replaying
from games import store
from games.engine import (
    RuleSet,
    action_from_json,
    action_to_json,
    legal_actions,
    new_game,
    step,
)
from games.engine.actions import resign as resign_code
from games.models import Game
from tests.bots.bot_servers import builtin_version
from tests.sdk.conftest import SECRET, cya_bot

BOT = "examples/webhook_bot.py"  # the example bot's decide, from sdk/
PLAYER = "bot.alices-bot"


@pytest.fixture
def base_url(live_server: LiveServer) -> str:
    """The live server's address on 127.0.0.1 (it listens there as 'localhost')."""
    return live_server.url.replace("localhost", "127.0.0.1")


@pytest.fixture
def ladder_game(
    transactional_db: None, alice: User, bob: User, carol: User, webhook_bot: str
) -> Game:
    """A finished three-seat ladder game with alice's webhook bot in it."""
    bot = services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)
    version = BotVersion.objects.create(
        bot=bot, number=1, status=BotVersion.Status.READY, url=webhook_bot, secret=SECRET
    )
    match = services.match_create(
        versions=[
            version,
            builtin_version(bob, "bobs-shark", "shark"),
            builtin_version(carol, "carols-greedy", "greedy"),
        ],
        kind=Match.Kind.LADDER,
        seed=21,
        duplicate=False,
    )
    runner.run_match(match)
    game = match.match_games.get().game
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def first_pair(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """What the example bot chooses (sdk/examples/webhook_bot.py)."""
    return next((a for a in legal if a["type"] in ("pair", "pair_discard")), legal[0])


def replay_json(game: Game, base_url: str, *args: str) -> dict[str, Any]:
    done = cya_bot("replay", str(game.pk), BOT, "--url", base_url, "--json", *args)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_bot_that_played_a_ladder_game_chooses_the_same_at_every_decision(
    ladder_game: Game, base_url: str
) -> None:
    seat = SeatControl.objects.get(seat__game=ladder_game, version__bot__name="alices-bot")
    report = replay_json(ladder_game, base_url, "--player", PLAYER)

    assert report["seats"] == [seat.seat.number]
    assert report["players"][str(seat.seat.number)] == PLAYER
    answered = [e for e in store.entries(ladder_game) if e.origin == "webhook"]
    assert len(report["decisions"]) == len(answered) > 10
    for step_, entry in zip(report["decisions"], answered, strict=True):
        assert (step_["seq"], step_["seat"], step_["origin"]) == (entry.seq, entry.seat, "webhook")
        assert step_["played"] == step_["chosen"] == entry.action
    assert report["differences"] == 0


def test_another_seat_replayed_shows_where_the_bot_would_have_chosen_otherwise(
    ladder_game: Game, base_url: str
) -> None:
    shark = SeatControl.objects.get(seat__game=ladder_game, version__bot__name="bobs-shark")
    number = shark.seat.number
    report = replay_json(ladder_game, base_url, "--seat", str(number))

    # the engine, dealt again here, says what the example bot sees at each of those turns
    rules = RuleSet.from_json(ladder_game.rules)
    state = new_game(rules, ladder_game.seed or 0)
    expected = []
    for entry in store.entries(ladder_game)[1:]:
        if state.to_act == number:
            legal = [action_to_json(a, rules.edition) for a in legal_actions(state)]
            expected.append((entry.seq, entry.action, first_pair(legal)))
        state = step(state, action_from_json(entry.action, rules.edition))[0]
    got = [(s["seq"], s["played"], s["chosen"]) for s in report["decisions"]]
    assert got == expected
    assert all(s["differs"] == (s["chosen"] != s["played"]) for s in report["decisions"])
    differing = [s for s in report["decisions"] if s["differs"]]
    assert report["differences"] == len(differing) > 0

    done = cya_bot("replay", str(ladder_game.pk), BOT, "--url", base_url, "--seat", str(number))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"game {ladder_game.pk}: {ladder_game.version} actions;"
        f" replaying seat {number} (bot.bobs-shark)"
    )
    shown = [line for line in lines if " differs " in line]
    assert len(shown) == len(differing)
    first = differing[0]
    assert shown[0].startswith(f"  v{first['version']:<4} seat {number} {first['kind']:<15} ")
    assert json.dumps(first["played"], separators=(",", ":")) in shown[0]
    assert lines[-1] == (
        f"{len(expected)} decisions replayed, {len(differing)} differ"
        f" ({len(differing) / len(expected):.0%}), 0 faults"
    )


def test_a_game_not_ended_or_not_there_cannot_be_replayed(
    ladder_game: Game, base_url: str, bob: User, carol: User
) -> None:
    unplayed = services.match_create(
        versions=[
            builtin_version(bob, "bobs-random", "random"),
            builtin_version(carol, "carols-random", "random"),
        ],
        kind=Match.Kind.FRIENDLY,
        duplicate=False,
    )
    active = unplayed.match_games.get().game
    for game_id, message in (
        (active.pk, "HTTP 409: A replay is available once the game has ended."),
        (ladder_game.pk + 1000, "HTTP 404"),
    ):
        done = cya_bot("replay", str(game_id), BOT, "--url", base_url)
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert message in done.stderr
    for args, message in (
        (("--seat", "7"), "has seats 0 to 2, not 7"),
        (("--player", "bot.nobody"), "'bot.nobody' has no seat in game"),
    ):
        done = cya_bot("replay", str(ladder_game.pk), BOT, "--url", base_url, *args)
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert message in done.stderr
    without_url = cya_bot("replay", str(ladder_game.pk), BOT)
    assert without_url.returncode == 2
    assert "give the platform's address: --url or CYA_URL" in without_url.stderr


def test_a_resignation_in_the_log_is_replayed_and_never_asked() -> None:
    rules = RuleSet.preset("2021", seats=3)
    state = new_game(rules, seed=5)
    log: list[dict[str, Any]] = [{"seq": 0, "action": None, "origin": "deal"}]
    asked_of_seat_2 = 0
    while not state.over:
        if state.version == 20 and not state.game.resigned:
            code = resign_code(1)  # seat 1 leaves; the engine plays its turns from now on
        else:
            asked_of_seat_2 += state.to_act == 2
            code = legal_actions(state)[0]
        log.append({"seq": len(log), "action": action_to_json(code, "2021"), "origin": "api"})
        state = step(state, code)[0]
    record = replaying.Record(9, 5, rules.to_json(), log, {0: "a", 1: "b", 2: "c"})

    def first_legal(decision: dict[str, Any]) -> dict[str, Any]:
        legal: list[dict[str, Any]] = decision["legal_actions"]
        return legal[0]

    report = replaying.replay(record, first_legal, [1, 2])
    assert [s.seat for s in report.steps].count(2) == asked_of_seat_2 > 0
    assert all(s.version < 20 for s in report.steps if s.seat == 1)
    assert report.differences == []


def test_a_log_the_engine_cannot_follow_is_refused_with_a_reason() -> None:
    rules = RuleSet.preset("2021", seats=3)
    state = new_game(rules, seed=5)
    log: list[dict[str, Any]] = [
        {"seq": 0, "action": None, "origin": "deal"},
        {"seq": 1, "action": action_to_json(legal_actions(state)[0], "2021"), "origin": "api"},
        {"seq": 2, "action": {"type": "discard", "card": "hoverboard"}, "origin": "api"},
    ]
    record = replaying.Record(9, 5, rules.to_json(), log, {})
    with pytest.raises(replaying.ReplayError, match="the action at step 2 does not apply here"):
        replaying.replay(record, lambda d: d["legal_actions"][0], [0, 1, 2])
