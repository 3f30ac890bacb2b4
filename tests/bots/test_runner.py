"""The match runner: duplicate deals, resuming after a crash, voiding on platform faults,
and API-client seats that act (or fail to act) through the HTTP action API.

Matches here play one round per game (the quick ending) so the runner's paths, not long
games, take the time. API-client bots are real HTTP clients of the live test server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import pytest
from pytest_django.live_server_helper import LiveServer

from accounts.models import User
from bots import runner, services, tasks
from bots.models import (
    BotVersion,
    Match,
    MatchEntry,
    MatchGame,
    RatingChange,
    SeatControl,
    Strike,
)
from bots.strategies import strategy
from bots.validation import builtin_versions
from games import store
from games.engine import default_action, new_game
from games.models import Event, Game, GameSnapshot, Seat
from tests.bots.bot_servers import (
    BotServer,
    api_client_version,
    builtin_version,
    good_bot,
    legal_choice,
    running,
    webhook_version,
)
from tests.bots.checks import (
    assert_finished_once,
    assert_gap_free_log,
    control_of,
    quick,
    seat_origins,
    states_before,
)

SEED = 2024


@pytest.fixture
def builtins(db: None) -> list[BotVersion]:
    """The platform's built-in versions: shark, greedy, random."""
    return builtin_versions()


def rated_snapshot(versions: list[BotVersion]) -> list[tuple[float, float, int, int]]:
    rows = BotVersion.objects.filter(pk__in=[v.pk for v in versions]).order_by("pk")
    return list(rows.values_list("mu", "sigma", "games_played", "matches_played"))


# --- duplicate deals ----------------------------------------------------------------------


def test_duplicate_deals_play_one_game_per_rotation_from_one_seed_with_positions_rotated(
    builtins: list[BotVersion], alice: User
) -> None:
    versions = [*builtins, builtin_version(alice, "alices-greedy", "greedy")]
    match = services.match_create(versions=versions, rules=quick(4), seed=SEED)
    runner.run_match(match)

    assert_finished_once(match)
    match_games = list(MatchGame.objects.filter(match=match).select_related("game"))
    assert [mg.rotation for mg in match_games] == [0, 1, 2, 3]
    assert {mg.game.seed for mg in match_games} == {SEED}
    dealt = new_game(quick(4), SEED)
    for mg in match_games:
        # the same shuffled deck every time: the deal logged first is the same deal
        deal = Event.objects.get(game=mg.game, seq=0).public_events
        assert deal == list(dealt.history)
        for position, version in enumerate(versions):
            seat = Seat.objects.get(game=mg.game, number=(position + mg.rotation) % 4)
            assert seat.user_id == version.bot.user_id
            assert SeatControl.objects.get(seat=seat).version_id == version.pk
    # so every version played every seat of the one deal once
    for version in versions:
        seats = Seat.objects.filter(game__match_game__match=match, control__version=version)
        assert sorted(seats.values_list("number", flat=True)) == [0, 1, 2, 3]
    # and is rated on the aggregate: summed places and dollars over the four games
    for entry in MatchEntry.objects.filter(match=match):
        seats = Seat.objects.filter(game__match_game__match=match, control__version=entry.version)
        tallies = list(seats.values_list("tally", flat=True))
        assert None not in tallies
        assert entry.dollars == sum(t or 0 for t in tallies)
        assert match.result["places"][str(entry.version_id)] == entry.place


def test_a_match_without_duplicate_deals_plays_one_game(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), duplicate=False)
    runner.run_match(match)
    assert_finished_once(match)
    assert MatchGame.objects.filter(match=match).count() == 1


def test_a_game_played_in_memory_makes_the_choices_a_game_stepped_seat_by_seat_makes(
    builtins: list[BotVersion],
) -> None:
    # both seed a seat's choice by (match, game, version): a game resumed either way, or
    # replayed, chooses alike (bots.runner._chooser formats the seeds' common part once)
    match = services.match_create(versions=builtins, rules=quick(3), seed=SEED)
    runner.run_match(match)

    for game in Game.objects.filter(match_game__match=match):
        players = {
            c.seat.number: strategy(c.version.strategy)
            for c in SeatControl.objects.filter(seat__game=game).select_related("seat", "version")
        }
        for entry, state in states_before(game):
            if entry.seq > 0:  # the deal is no one's choice
                chosen = runner._pick(match, game, state, players[state.to_act])
                assert entry.action_code == chosen, (game.pk, entry.seq)


# --- resuming -----------------------------------------------------------------------------


def play_some_decisions(match: Match, game: Game, decisions: int) -> None:
    """What a runner did before it crashed: ``decisions`` steps of one game, no more."""
    for _ in range(decisions):
        game.refresh_from_db()
        state = store.load_state(game)
        control = SeatControl.objects.select_related("seat", "version__bot__user").get(
            seat__game=game, seat__number=state.to_act
        )
        runner._step(match, game, state, control)


@pytest.fixture
def webhook_table(alice: User, builtins: list[BotVersion]) -> Iterator[WebhookTable]:
    """Alice's good webhook bot (running) at a table with the shark and random built-ins."""
    with running(good_bot()) as (server,):
        version = webhook_version(alice, "alices-bot", server)
        yield WebhookTable(server, version, [version, builtins[0], builtins[2]])


@dataclass(frozen=True)
class WebhookTable:
    server: BotServer
    version: BotVersion
    versions: list[BotVersion]


def test_a_match_resumed_after_a_crash_mid_game_finishes_it_exactly_once(
    webhook_table: WebhookTable,
) -> None:
    server, versions = webhook_table.server, webhook_table.versions
    match = services.match_create(
        versions=versions, rules=quick(3), seed=SEED, decision_ms=200, time_bank_ms=300
    )
    games = [mg.game for mg in MatchGame.objects.filter(match=match).select_related("game")]
    # the first run: claimed, played the first game, half of the second, then died
    services.match_claim(match_id=match.pk)
    runner.run_game(match, games[0])
    play_some_decisions(match, games[1], 20)
    games[1].refresh_from_db()
    assert games[1].status == Game.Status.ACTIVE
    crashed_at = games[1].version
    first_game_log = store.entries(Game.objects.get(pk=games[0].pk))
    asked_before_crash = len(server.decisions())

    assert tasks.play_match(match.pk) == "finished"  # the redelivered task resumes it

    match.refresh_from_db()
    assert match.attempts == 2
    assert_finished_once(match)
    # the finished game was left alone; the half-played one went on from where it stopped
    assert store.entries(Game.objects.get(pk=games[0].pk)) == first_game_log
    asked_after = server.decisions()[asked_before_crash:]
    assert games[0].pk not in {d["game"] for d in asked_after}
    resumed = [d["version"] for d in asked_after if d["game"] == games[1].pk]
    assert resumed
    assert min(resumed) >= crashed_at
    asked = [(d["game"], d["version"]) for d in server.decisions()]
    assert len(asked) == len(set(asked))  # no decision was asked twice
    assert not Strike.objects.filter(control__seat__game__match_game__match=match).exists()
    assert RatingChange.objects.filter(match=match).count() == 3
    after = rated_snapshot(versions)
    assert [row[2:] for row in after] == [(3, 1)] * 3

    # and one more delivery of the task finds the match ended: nothing is played or rated
    assert tasks.play_match(match.pk) == "already ended"
    assert len(server.requests) == len(asked)
    assert RatingChange.objects.filter(match=match).count() == 3
    assert rated_snapshot(versions) == after


def test_finishing_a_finished_match_again_rates_nothing_twice(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3))
    runner.run_match(match)
    rated = rated_snapshot(builtins)
    runner.run_match(match)
    services.match_finish(match=match)
    assert RatingChange.objects.filter(match=match).count() == 3
    assert rated_snapshot(builtins) == rated


# --- platform faults ----------------------------------------------------------------------


def assert_voided_unrated(match: Match, before: list[tuple[float, float, int, int]]) -> None:
    """Voided: its unfinished games aborted, no entry placed, no rating touched."""
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED
    assert match.rated_at is None
    assert match.finished_at is not None
    for game in Game.objects.filter(match_game__match=match):
        assert game.status in (Game.Status.FINISHED, Game.Status.ABORTED)
        if game.status == Game.Status.ABORTED:
            assert game.end_reason == "platform_fault"
    assert Game.objects.filter(match_game__match=match, status=Game.Status.ABORTED).exists()
    assert not RatingChange.objects.filter(match=match).exists()
    assert not MatchEntry.objects.filter(match=match, place__isnull=False).exists()
    versions = list(BotVersion.objects.filter(entries__match=match))
    assert rated_snapshot(versions) == before
    assert tasks.play_match(match.pk) == "already ended"  # and it stays voided
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED


def test_an_engine_fault_voids_the_match_aborts_its_unfinished_games_and_rates_nothing(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=SEED)
    games = [mg.game for mg in MatchGame.objects.filter(match=match).select_related("game")]
    runner.run_game(match, games[0])  # one game played before the fault
    GameSnapshot.objects.filter(game=games[1]).update(state=b'{"format": "corrupted"}')
    store.forget(games[1].pk)
    before = rated_snapshot(builtins)

    assert tasks.play_match(match.pk) == "voided"

    assert_voided_unrated(match, before)
    assert match.void_reason == "EngineError: unknown state format 'corrupted'"
    assert Game.objects.get(pk=games[0].pk).status == Game.Status.FINISHED
    later = Game.objects.filter(pk__in=[g.pk for g in games[1:]])
    assert set(later.values_list("status", flat=True)) == {Game.Status.ABORTED}


def test_a_server_fault_voids_the_match_and_rates_nothing(
    builtins: list[BotVersion], alice: User
) -> None:
    withdrawn = builtin_version(alice, "withdrawn", "greedy")
    BotVersion.objects.filter(pk=withdrawn.pk).update(strategy="withdrawn-shark")
    match = services.match_create(versions=[builtins[0], withdrawn], rules=quick(2))
    before = rated_snapshot([builtins[0], withdrawn])

    assert tasks.play_match(match.pk) == "voided"

    assert_voided_unrated(match, before)
    assert match.void_reason == "KeyError: 'withdrawn-shark'"


def test_a_voided_match_is_never_finished_or_rated_afterwards(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3))
    services.match_void(match=match, reason="worker lost")
    before = rated_snapshot(builtins)

    runner.run_match(match)  # a runner that had not noticed: its games are aborted
    services.match_finish(match=match)

    assert_voided_unrated(match, before)
    assert match.void_reason == "worker lost"


def test_a_match_whose_worker_keeps_dying_is_voided_on_the_fourth_attempt(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3))
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, attempts=3)
    before = rated_snapshot(builtins)

    assert tasks.play_match(match.pk) == "voided"

    assert_voided_unrated(match, before)
    assert match.attempts == 4
    assert match.void_reason == "gave up after 3 attempts"


# --- API-client seats ---------------------------------------------------------------------


class ApiBot(threading.Thread):
    """An API-client bot on its own token: waits for its turn, reads the decision, acts.

    It talks to the live test server over HTTP like any client. Each decision it read is
    kept with the time it read it, so the test can check the deadline it was shown.
    """

    def __init__(self, base_url: str, key: str, game_id: int) -> None:
        super().__init__(daemon=True)
        self.base_url = base_url
        self.key = key
        self.game_id = game_id
        self.seen: list[tuple[float, dict[str, Any]]] = []
        self.acted: list[int] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._play()
        except BaseException as error:  # reported by the test
            self.error = error

    def _play(self) -> None:
        url = f"/api/v1/games/{self.game_id}/"
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base_url, headers=headers, timeout=15) as http:
            version = 0
            give_up = time.monotonic() + 60
            while time.monotonic() < give_up:
                waited = http.get(url + "wait/", params={"after": version, "timeout": 5})
                waited.raise_for_status()
                body = waited.json()
                if body["status"] != Game.Status.ACTIVE:
                    return
                version = body["version"]
                if not body["your_turn"]:
                    continue
                decision = self._decision(http, url)
                answer = http.post(
                    url + "actions/",
                    json={"action": legal_choice(decision), "version": decision["version"]},
                )
                assert answer.status_code == 201, answer.text
                self.acted.append(decision["version"])
                version = answer.json()["game"]["version"]

    def _decision(self, http: httpx.Client, url: str) -> dict[str, Any]:
        # The runner shows the deadline just after the previous action commits; a bot
        # that reads its decision in between sees it a moment later.
        for _ in range(200):
            read_at = time.time()
            decision: dict[str, Any] = http.get(url + "decision/").json()["decision"]
            if decision["deadline"] is not None:
                self.seen.append((read_at, decision))
                return decision
            time.sleep(0.005)
        raise AssertionError(f"decision {decision['decision_id']} never showed a deadline")


def test_an_api_client_bot_acts_through_the_action_api_within_the_deadline_it_is_shown(
    transactional_db: None, live_server: LiveServer, alice: User
) -> None:
    version = api_client_version(alice, "alices-client")
    _, key = services.bot_token_create(bot=version.bot, by=alice, name="play")
    opponent = builtin_version(services.platform_user(), "house-random", "random")
    match = services.match_create(
        versions=[version, opponent],
        rules=quick(2),
        duplicate=False,
        decision_ms=3000,
        time_bank_ms=2000,
    )
    game = Game.objects.get(match_game__match=match)
    bot = ApiBot(live_server.url, key, game.pk)
    bot.start()

    runner.run_match(match)
    bot.join(timeout=30)

    assert bot.error is None, repr(bot.error)
    assert_finished_once(match)
    control = control_of(match, version.pk)
    assert set(seat_origins(control)) == {"api"}
    moves = Event.objects.filter(game=game, seat=control.seat.number, seq__gt=0)
    assert sorted(e.seq - 1 for e in moves) == bot.acted  # each move its own, none by default
    assert all(e.actor_id == version.bot.user_id for e in moves)
    assert control.strikes == 0
    assert control.autopilot_since is None
    budget = (match.decision_ms + match.time_bank_ms) / 1000
    for read_at, decision in bot.seen:
        deadline = datetime.fromisoformat(decision["deadline"]).timestamp()
        assert read_at - 1 < deadline <= read_at + budget + 1


def test_an_api_client_bot_that_never_acts_is_struck_at_each_deadline_then_put_on_autopilot(
    alice: User, builtins: list[BotVersion]
) -> None:
    silent = api_client_version(alice, "silent-client")
    match = services.match_create(
        versions=[silent, builtins[2]],
        rules=quick(2),
        duplicate=False,
        decision_ms=200,
        time_bank_ms=300,
    )
    runner.run_match(match)

    control = control_of(match, silent.pk)
    strikes = list(control.strike_log.order_by("game_version"))
    assert [s.reason for s in strikes] == [Strike.Reason.TIMEOUT] * 3
    # the first wait is the decision time plus the bank; a timeout empties the bank
    assert [s.detail for s in strikes] == [
        "no action within 500 ms",
        "no action within 200 ms",
        "no action within 200 ms",
    ]
    assert [s.elapsed_ms >= limit for s, limit in zip(strikes, (500, 200, 200), strict=True)] == [
        True
    ] * 3
    assert control.autopilot_since is not None
    origins = seat_origins(control)
    assert origins[:3] == ["fallback"] * 3
    assert set(origins[3:]) == {"autopilot"}
    game = Game.objects.get(pk=control.seat.game_id)
    for event, state in states_before(game):
        if event.origin == "fallback":
            assert event.action_code == default_action(state)
    assert_gap_free_log(game)
    assert_finished_once(match)
    entry = MatchEntry.objects.get(match=match, version=silent)
    assert entry.forfeited is True
    assert entry.place == 2
