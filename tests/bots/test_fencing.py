"""Every finishing write of a validation and of a bot's turn at a people's table checks
its run's lease (issue 25, bots.leases): a run whose lease another run took over (its
renewals lost while the database was away) stops at its next write and writes nothing
of what it did, and the work is done once, by the run that holds the lease.

The take-over is real: another connection gives the lease row a new owner and a raised
fencing token while the run waits on its bot's answer, as a second run does once the
first one's time ran out. (Matches: tests/faults/test_leases.py restarts PostgreSQL.)
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from bots import leases, runner, services, tasks
from bots.models import Bot, BotVersion, Lease, Match, SeatControl, Strike
from games import services as game_services
from games import store
from games.engine import RuleSet, action_to_json, default_action
from games.models import Event, Game
from games.seating import BotChoice
from tests.bots.bot_servers import SECRET, BotServer, Reply, answer_legal, legal_choice
from tests.bots.checks import let_go, take_over
from tests.factories import UserFactory

# committed rows (another connection takes the lease over), and no worker doing the
# tasks these tests run in-process
pytestmark = pytest.mark.usefixtures("transactional_db", "worker_paused")


def taken_over_at_first_decision(namespace: int, key: Any) -> BotServer:
    """A webhook bot that answers legally, but whose first decision finds the lease of
    (``namespace``, ``key()``) taken over by another run while it thinks."""
    taken: list[bool] = []

    def behave(bot: BotServer, decision: dict[str, Any]) -> Reply:
        if not taken:
            take_over(namespace, key())
            taken.append(True)
        return Reply.json({"action": legal_choice(decision)})

    return BotServer("fenced", behave)


def new_webhook_version(owner: User, url: str) -> BotVersion:
    bot = services.bot_create(owner=owner, name="fenced-bot", kind=Bot.Kind.WEBHOOK)
    return services.version_create(bot=bot, by=owner, url=url, secret=SECRET, tag="v1")


def test_a_validation_whose_lease_is_taken_over_writes_nothing_and_the_holder_finishes_it(
    alice: User,
) -> None:
    versions: list[BotVersion] = []
    with taken_over_at_first_decision(leases.LEASE_VERSION, lambda: versions[0].pk) as server:
        versions.append(new_webhook_version(alice, server.url))
        version = versions[0]
        assert tasks.handshake(version.pk) == BotVersion.Status.VALIDATING

        assert tasks.validate_version(version.pk) == "lease lost"

        version.refresh_from_db()
        assert version.status == BotVersion.Status.VALIDATING  # no verdict written
        assert version.validation_log == ["handshake: 'fenced', protocol 1"]
        match = Match.objects.get(kind=Match.Kind.VALIDATION, entries__version=version)
        assert match.status != Match.Status.FINISHED
        control = SeatControl.objects.get(seat__game__match_game__match=match, version=version)
        assert not Event.objects.filter(game=control.seat.game, seat=control.seat.number)
        assert tasks.validate_version(version.pk) == "held elsewhere"  # by the other run

        let_go(leases.LEASE_VERSION, version.pk)  # the other run ended without finishing
        server.behaviour = answer_legal()
        assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    version.refresh_from_db()
    game_id = match.match_games.get().game_id
    assert version.validation_log == [
        "handshake: 'fenced', protocol 1",
        f"validation game {game_id} (match {match.pk})",  # the same game, resumed
        "passed",
    ]


def test_a_bot_turn_whose_lease_is_taken_over_writes_nothing(alice: User) -> None:
    games: list[Game] = []
    with taken_over_at_first_decision(leases.LEASE_TURN, lambda: games[0].pk) as server:
        version = new_webhook_version(UserFactory.create(), server.url)
        tasks.handshake(version.pk)
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
        game = game_services.game_create(
            by=alice,
            rules=RuleSet.preset("2021", seats=2, ending="quick"),
            bots=[BotChoice(1, version=version.pk)],
        )
        games.append(game)
        game = at_the_bots_turn(game, alice)
        control = SeatControl.objects.get(seat__game=game, seat__number=1)

        assert tasks.play_turn(game.pk, game.version) == "lease lost"

    assert Game.objects.get(pk=game.pk).version == game.version  # no action applied
    assert not Strike.objects.filter(control=control).exists()
    assert SeatControl.objects.get(pk=control.pk).time_bank_ms == control.time_bank_ms
    assert len(server.decisions()) == 1  # it was asked, and its answer was dropped


def at_the_bots_turn(game: Game, person: User) -> Game:
    """``game`` of ``person`` and a bot in seat 1, the person's first move played if the
    deal made them first: at the bot's turn."""
    if game.to_act == 0:
        state = store.load_state(game)
        game_services.action_submit(
            game_id=game.pk,
            user=person,
            action=action_to_json(default_action(state), state.rules.edition),
            version=game.version,
        )
        game.refresh_from_db()
    return game


def builtin_table(alice: User) -> Game:
    """A table of ``alice`` and a built-in, at the built-in's turn."""
    rules = RuleSet.preset("2021", seats=2, ending="quick")
    game = game_services.game_create(by=alice, rules=rules, bots=[BotChoice(1, "greedy")])
    return at_the_bots_turn(game, alice)


def test_a_builtins_turn_whose_lease_is_taken_over_writes_nothing(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = builtin_table(alice)
    choose = runner._choose

    def taken_over_while_choosing(*args: Any) -> int:
        take_over(leases.LEASE_TURN, game.pk)
        return choose(*args)

    monkeypatch.setattr(runner, "_choose", taken_over_while_choosing)

    assert tasks.play_turn(game.pk, game.version) == "lease lost"

    assert Game.objects.get(pk=game.pk).version == game.version  # no action applied
    lease = Lease.objects.get(namespace=leases.LEASE_TURN, key=game.pk)
    assert lease.owner == "took-over"
    assert not leases.lease_free(leases.LEASE_TURN, game.pk)


def test_a_builtins_turn_lets_its_lease_go_with_its_move_and_nothing_after_it(
    alice: User,
) -> None:
    game = builtin_table(alice)
    with leases.lease(leases.LEASE_TURN, game.pk):  # an earlier turn's, let go
        pass

    with CaptureQueriesContext(connection) as queries:
        assert tasks.play_turn(game.pk, game.version) == "played"

    statements = [query["sql"] for query in queries.captured_queries]
    on_leases = [n for n, sql in enumerate(statements) if "bots_lease" in sql]
    move = statements.index("BEGIN")
    assert len(on_leases) == 2  # taken in one statement; checked and let go in another
    assert on_leases[0] < move < on_leases[1]  # ... inside the move's transaction
    assert sum("bots_seatcontrol" in sql for sql in statements) == 1  # the seat, in one read
    assert statements[-1] == "COMMIT"  # nothing after the move: the turn is over
    assert leases.lease_free(leases.LEASE_TURN, game.pk)
    assert Game.objects.get(pk=game.pk).version == game.version + 1
