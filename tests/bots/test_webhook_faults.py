"""Webhook bots that dawdle, fail, babble, cheat or hang up: the match survives them.

Each faulty bot sits at a three-seat ladder table with a good webhook bot and the
platform's built-in random strategy, playing one round (the quick ending) under a short
time control (200 ms a decision, a 300 ms time bank). Every bad answer is replaced by
the engine's safe default and logged as a strike with its reason; the third strike
hands the seat to the autopilot for the rest of the game and ranks its version last;
the other seats play on and are rated.
The bots are real HTTP servers on 127.0.0.1 (tests/bots/bot_servers.py).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from accounts.models import User
from bots import runner, services, timecontrol
from bots.models import BotVersion, Match, MatchEntry, RatingChange, SeatControl, Strike
from bots.validation import builtin_versions
from games.engine import EngineError, State, action_from_json, apply, default_action
from games.models import Event, Game
from tests.bots import bot_servers
from tests.bots.bot_servers import BotServer, good_bot, running, webhook_version
from tests.bots.checks import (
    assert_finished_once,
    control_of,
    quick,
    seat_origins,
    state_at,
    states_before,
)

# a second per decision: at 200 ms a machine as busy as a whole suite (and mutation runs
# beside it) answered the malformed bot's quick answer past its time, a timeout strike
DECISION_MS = 1000
TIME_BANK_MS = 300
SEED = 11


def engine_refusal(state: State, action: dict[str, Any]) -> str:
    """The strike detail for an action the engine refuses: its code and message."""
    try:
        apply(state, action_from_json(action, state.rules.edition), seat=state.to_act)
    except EngineError as error:
        return f"{error.code}: {error}"
    raise AssertionError(f"the engine accepted {action}")


@dataclass(frozen=True)
class Fault:
    """A faulty bot, the strike reason it earns, and the detail of its n-th strike."""

    bot: Callable[[], BotServer]
    reason: str
    detail: Callable[[int, State, dict[str, Any]], str]  # (n, state, decision sent)


FAULTS = {
    "slow": Fault(
        bot_servers.slow_bot,
        Strike.Reason.TIMEOUT,
        # the first wait is decision + bank; a timeout empties the bank for the rest
        lambda n, state, sent: (
            f"no answer within {DECISION_MS + (TIME_BANK_MS if n == 0 else 0)} ms"
        ),
    ),
    "trickle": Fault(
        bot_servers.trickle_bot,
        Strike.Reason.TIMEOUT,
        lambda n, state, sent: f"no answer within {sent['decision_ms'] + sent['time_bank_ms']} ms",
    ),
    "http_500": Fault(bot_servers.http_error_bot, Strike.Reason.HTTP, lambda *_: "HTTP 500"),
    "garbage": Fault(
        bot_servers.garbage_bot, Strike.Reason.MALFORMED, lambda *_: "the answer is not JSON"
    ),
    "illegal": Fault(
        bot_servers.illegal_bot,
        Strike.Reason.ILLEGAL,
        lambda n, state, sent: engine_refusal(state, bot_servers.illegal_action(sent)),
    ),
    "malformed": Fault(
        bot_servers.malformed_bot,
        Strike.Reason.MALFORMED,
        lambda n, state, sent: engine_refusal(state, {"type": "bribe", "dollars": 1000}),
    ),
    "hangup": Fault(
        bot_servers.hangup_bot,
        Strike.Reason.CONNECTION,
        lambda *_: "the connection ended without an HTTP answer",  # never the system's words
    ),
}


@pytest.fixture
def random_builtin(db: None) -> BotVersion:
    """The platform's built-in random strategy: the third seat of every table here."""
    return next(v for v in builtin_versions() if v.strategy == "random")


def table(*versions: BotVersion) -> Match:
    """A one-game ladder match of one round (the quick ending), seated in this order."""
    return services.match_create(
        versions=versions,
        rules=quick(len(versions)),
        seed=SEED,
        duplicate=False,
        decision_ms=DECISION_MS,
        time_bank_ms=TIME_BANK_MS,
    )


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_bad_answers_get_the_safe_default_and_strikes_and_the_third_brings_the_autopilot(
    fault: Fault, alice: User, bob: User, random_builtin: BotVersion
) -> None:
    with running(fault.bot(), good_bot()) as (bad_server, good_server):
        faulty = webhook_version(alice, "faulty", bad_server)
        good = webhook_version(bob, "good", good_server)
        match = table(faulty, good, random_builtin)
        runner.run_match(match)

    control = control_of(match, faulty.pk)
    game = Game.objects.get(pk=control.seat.game_id)
    strikes = list(control.strike_log.order_by("game_version"))
    sent = bad_server.decisions()
    # three decisions reached the bot, each answered badly; then the autopilot took over
    assert [d["version"] for d in sent] == [s.game_version for s in strikes]
    assert len(strikes) == timecontrol.MAX_STRIKES == 3
    for n, (strike, decision) in enumerate(zip(strikes, sent, strict=True)):
        assert strike.reason == fault.reason
        assert strike.detail == fault.detail(n, state_at(game, strike.game_version), decision)
    assert control.strikes == 3
    assert control.autopilot_since is not None
    assert seat_origins(control)[:3] == ["fallback"] * 3
    assert set(seat_origins(control)[3:]) == {"autopilot"}
    # every fallback of the faulty seat is the engine's safe default for the decision it
    # replaced (the good bot may get one too, without a strike, when a loaded machine
    # makes it answer past its time)
    seat = control.seat.number
    fallbacks = [
        (e, s) for e, s in states_before(game) if e.origin == "fallback" and e.seat == seat
    ]
    assert [e.seq - 1 for e, _ in fallbacks] == [s.game_version for s in strikes]
    for event, state in fallbacks:
        assert event.action_code == default_action(state)

    # the rest of the table played on: the game finished and the match was rated
    assert_finished_once(match)
    entries = {e.version_id: e for e in MatchEntry.objects.filter(match=match)}
    assert entries[faulty.pk].forfeited is True
    assert entries[faulty.pk].place == 3
    assert entries[good.pk].forfeited is entries[random_builtin.pk].forfeited is False
    assert RatingChange.objects.get(match=match, version=faulty).actual_place == 3
    for version in (faulty, good, random_builtin):
        version.refresh_from_db()
        assert version.games_played == 1
    # and the good bot, at the same table, was never struck
    assert not Strike.objects.filter(control__version=good).exists()
    assert set(seat_origins(control_of(match, good.pk))) == {"webhook"}
    assert good_server.signatures_all_valid()
    assert bad_server.signatures_all_valid()


@pytest.fixture
def good_match(alice: User, random_builtin: BotVersion) -> tuple[Match, BotServer]:
    """A finished one-game match of alice's good webhook bot (seat 0) and random."""
    with running(good_bot("first")) as (first,):
        match = table(webhook_version(alice, "first", first), random_builtin)
        runner.run_match(match)
    return match, first


def test_a_good_bot_is_never_struck_and_answers_every_one_of_its_decisions(
    good_match: tuple[Match, BotServer],
) -> None:
    match, server = good_match
    assert_finished_once(match)
    assert not Strike.objects.filter(control__seat__game__match_game__match=match).exists()
    assert not SeatControl.objects.filter(
        seat__game__match_game__match=match, autopilot_since__isnull=False
    ).exists()
    control = SeatControl.objects.get(
        seat__game__match_game__match=match, version__bot__name="first"
    )
    moves = Event.objects.filter(game=control.seat.game, seat=control.seat.number, seq__gt=0)
    assert moves.count() == len(server.decisions()) > 5
    assert set(moves.values_list("origin", flat=True)) == {"webhook"}


def test_every_decision_request_is_signed_with_hmac_sha256_over_timestamp_and_body(
    good_match: tuple[Match, BotServer],
) -> None:
    _, server = good_match
    posts = [r for r in server.requests if r.method == "POST"]
    assert posts
    for request in posts:
        timestamp = request.headers["x-cya-timestamp"]
        digest = hmac.new(
            server.secret.encode(), timestamp.encode() + b"." + request.body, hashlib.sha256
        ).hexdigest()
        assert request.headers["x-cya-signature"] == f"sha256={digest}"
        assert abs(int(timestamp) - time.time()) < 120
        assert request.signature_ok  # what bots.webhook.verify says, on the bot's side


def test_every_decision_carries_what_the_protocol_promises(
    good_match: tuple[Match, BotServer],
) -> None:
    _, server = good_match
    banks = []
    for request in (r for r in server.requests if r.method == "POST"):
        decision = request.decision()
        banks.append(decision["time_bank_ms"])
        assert request.headers["x-cya-decision"] == decision["decision_id"]
        assert decision["decision_id"] == f"{decision['game']}:{decision['version']}"
        assert decision["type"] == "decision"
        assert decision["protocol_version"] == 1
        assert decision["seat"] == 0
        assert decision["legal_actions"]
        assert decision["observation"]
        assert decision["decision_ms"] == DECISION_MS
        deadline = datetime.fromisoformat(decision["deadline"]).timestamp()
        sent_at = int(request.headers["x-cya-timestamp"])
        budget_s = (DECISION_MS + decision["time_bank_ms"]) / 1000
        assert sent_at - 1 <= deadline <= sent_at + 1 + budget_s
    # the bank starts full and only shrinks (by any answer slower than decision_ms: a
    # loaded machine may make even this quick bot dip into it)
    assert banks[0] == TIME_BANK_MS
    assert all(0 <= later <= earlier for earlier, later in itertools.pairwise(banks))


def test_connections_to_a_bot_are_reused_from_decision_to_decision(
    good_match: tuple[Match, BotServer],
) -> None:
    _, server = good_match
    assert len(server.decisions()) > 5
    assert server.connections == 1
    assert {r.connection for r in server.requests} == {1}
