"""Schemathesis against the OpenAPI schema: every operation answers as the schema says.

The schema is read from ``/api/v1/schema/`` through the WSGI app, in process, and every
operation is called with generated input (positive and negative) against real data made
through the services: a club's league, roster, season and night, a recorded table with a
round entered, a started tournament, a game in progress, a bot with a version, a strike
and a finished match. So every list has rows and every path names a real object. Each
operation's calls are rolled back, so one operation's writes never reach another. The
club's operations are called as its organiser, the others as alice, a player.
Generation is bounded and derandomised: a run is short and repeatable.

Every check schemathesis has is on (response conformance, negative data refused, positive
data accepted, undeclared methods, authentication, ...) but ``max_response_time``, since
timing belongs in benchmarks/, not in asserts. A request the schema allows may still be
refused by the rules (an option the engine cannot play, a seat the table lacks, an action
that is not legal now, a name nobody has), but never as malformed: schemathesis.toml lets
such a request get 404, 409, 422 or 429, never 400, so the schema is exactly as strict as
the code (docs/errors.md: 400 means the schema refuses the request).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, Phase, settings
from pytest_django import DjangoDbBlocker
from rest_framework.test import APIClient
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation

from accounts.models import User
from accounts.services import token_create
from bots import runner
from bots import services as bots
from bots.challenges import Opponent, challenge_create
from bots.models import Bot, MatchGame, SeatControl
from bots.strategies import strategy
from bots.strategies.arena import play
from bots.validation import builtin_versions
from cya_site.wsgi import application
from games import services as games
from games.engine import RuleSet
from tests.bots.bot_servers import SECRET
from tests.bots.checks import quick
from tests.factories import UserFactory
from tournaments import discipline, nights, recording, roster, running
from tournaments.models import GameEntry
from tournaments.services import competitor_add, league_create, night_create, season_create

# The stream never ends on an active game: tests/games/test_stream.py covers it against a
# real ASGI server instead.
# The project's schemathesis.toml, wherever pytest was started: the statuses a request the
# schema allows may get.
CONFIG = SchemathesisConfig.from_path(Path(__file__).parents[2] / "schemathesis.toml")
served = schemathesis.openapi.from_wsgi("/api/v1/schema/", application, config=CONFIG).exclude(
    path_regex="/stream/$"
)
# Operations whose body holds a table's rules (RulesInput): the schemathesis coverage phase
# (every property's boundaries and wrong types, a few hundred calls an operation) runs its
# rule options once, on POST /api/v1/games/; these five are fuzzed only, which keeps the
# run about a minute.
RULES_BODIES = r"^/api/v1/(tournaments|leagues|challenges|nights/\{id\}/(games|recorded))/$"
schema = served.exclude(path_regex=RULES_BODIES, method="POST")
rules_bodies = served.include(path_regex=RULES_BODIES, method="POST")
# CI's size; the longer run in docs/testing.md sets SCHEMATHESIS_EXAMPLES (e.g. 100).
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "4"))
BOUNDED = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    # the module's data and the function-scoped fixtures are shared by an operation's examples
    suppress_health_check=list(HealthCheck),
)
# The club's resources: their writes are the organiser's.
CLUB = ("leagues", "seasons", "nights", "members", "competitions", "recorded-games", "tournaments")


@dataclass(frozen=True)
class World:
    """The ids each path names, and the callers' Authorization headers."""

    ids: dict[str, int]
    headers: dict[str, dict[str, str]]

    def path_parameters(self, path: str) -> dict[str, str]:
        """Real ids for the path's parameters: the resource it names, round 1, a member."""
        resource = path.split("/")[3]
        if resource == "games" and "/replay/" in path:
            resource = "finished-games"
        if resource == "members" and path.endswith(("/games/", "/club-games/")):
            resource = "checked-in"  # alice's entry: a guest has no games online
        found = {
            "id": self.ids.get(resource),
            "number": 1,
            "member": self.ids["checked-in"],
            "name": "alice",  # a player: a game in progress, and a club game settled
        }
        # strings: a path parameter is text, and some are documented as digits by a pattern
        return {name: str(value) for name, value in found.items() if "{" + name + "}" in path}

    def caller(self, path: str) -> dict[str, str]:
        """The organiser for the club's resources, alice for the rest."""
        return self.headers["olga" if path.split("/")[3] in CLUB else "alice"]


def _bearer(user: User, name: str) -> dict[str, str]:
    _, key = token_create(user=user, name=name)
    return {"Authorization": f"Bearer {key}"}


def _bots(alice: User) -> dict[str, int]:
    """Alice's webhook bot with a ready version and a strike, a finished ladder match, and
    a challenge of hers (never played: its tasks are sent only if the world commits)."""
    bot = bots.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)
    url = "http://127.0.0.1:9/cya"  # loopback (the suite allows it), where nothing listens
    version = bots.version_create(bot=bot, by=alice, url=url, secret=SECRET)
    bots.version_validated(version=version, passed=True, log=["passed"])
    struck = bots.match_create(versions=[version, *builtin_versions()[:2]], duplicate=False)
    control = SeatControl.objects.get(seat__game__match_game__match=struck, version=version)
    bots.strike_record(
        control=control, game_version=0, reason="timeout", detail="late", elapsed_ms=2000
    )
    match = bots.match_create(versions=builtin_versions()[:3], rules=quick(3))
    runner.run_match(match)
    challenge = challenge_create(
        by=alice, bot=bot, opponents=[Opponent("shark")], deals=1, rules=quick(2)
    )
    return {"bots": bot.pk, "matches": match.pk, "challenges": challenge.pk}


def _club(olga: User, players: list[User]) -> dict[str, int]:
    """olga's league: its roster checked in to a night, seated at one recorded table with
    a round entered, and a recorded tournament of the same players, started."""
    rules = RuleSet.preset("2021")
    league = league_create(by=olga, name="Tuesday Club", slug="tuesday", rules=rules)
    members = [roster.member_add(league=league, by=olga, user=u) for u in players]
    members.append(roster.member_add(league=league, by=olga, name="Dora"))
    today = timezone.localdate()
    season = season_create(league=league, by=olga, name="Autumn", starts_on=today)
    night = night_create(season=season, by=olga, on=today)
    for member in members:
        nights.night_check_in(night=night, by=olga, member=member)
    draw = nights.night_draw(night=night, by=olga, seed=1)
    table = GameEntry.objects.select_related("game").get(night_round=draw, seat=0).game
    first_round = play(rules.with_options(seats=4), 7, [strategy("greedy")] * 4, Random(7))
    recording.round_record(game=table, by=olga, dollars=list(first_round.scores[0]))
    # a seat taken by a substitute, and a penalty: their lists have rows
    discipline.substitute_seat(game=table, by=olga, seat=3, name="Erin", reason="left early")
    discipline.penalty_give(
        competition=season.competition,
        by=olga,
        competitor=GameEntry.objects.get(game=table, seat=0).competitor,
        kind="points",
        amount=0.5,
        reason="late",
    )
    cup = running.tournament_create(
        by=olga,
        name="Cup",
        format="round_robin",
        entrants="humans",
        play="recorded",
        rules=rules,
        rounds=1,
        table_sizes=[4],
        preferred_size=4,
        league=league,
    )
    for member in members:
        running.entrant_add(tournament=cup, by=olga, member=member)
    running.tournament_start(tournament=cup, by=olga)
    return {
        "leagues": league.pk,
        "seasons": season.pk,
        "competitions": season.competition_id,
        "nights": night.pk,
        "members": members[-1].pk,
        "checked-in": members[0].pk,
        "recorded-games": table.pk,
        "tournaments": cup.pk,
    }


def _settled(olga: User, players: list[User]) -> None:
    """A recorded game of the players at another club, settled: its results are their club
    games (the Tuesday Club's table and cup are still being played)."""
    rules = RuleSet.preset("2021", ending="quick")  # one round decides it
    league = league_create(
        by=olga, name="Wednesday Club", slug="wednesday", rules=rules, organiser_entries_settle=True
    )
    today = timezone.localdate()
    season = season_create(league=league, by=olga, name="Autumn", starts_on=today)
    night = night_create(season=season, by=olga, on=today)
    competitors = [
        competitor_add(competition=season.competition, by=olga, name=u.username, user=u)
        for u in players
    ]
    game = recording.recorded_game_create(
        by=olga, competition=season.competition, competitors=competitors, rules=rules, night=night
    )
    recording.round_record(game=game, by=olga, dollars=[300_000, 100_000][: len(players)])


def _digital(players: list[User], staff: User) -> int:
    """A two-seat game in progress (its first player on turn): alice and bob."""
    game = games.game_create(by=players[0], rules=RuleSet.preset("2021", seats=2))
    games.game_join(game=game, user=players[1])
    return games.game_start(game=game, by=staff, seed=7).pk


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The club, a game, a bot and the callers' tokens, in a transaction rolled back after
    the module."""
    with django_db_blocker.unblock(), transaction.atomic():
        alice, bob, carol = (UserFactory.create(username=n) for n in ("alice", "bob", "carol"))
        olga = UserFactory.create(username="olga")
        staff = UserFactory.create(username="staff", is_staff=True, is_superuser=True)
        ids = {
            "games": _digital([alice, bob], staff),
            "tokens": token_create(user=alice, name="spare")[0].pk,
            **_bots(alice),
            **_club(olga, [alice, bob, carol]),
        }
        _settled(olga, [alice, bob])
        ids["finished-games"] = MatchGame.objects.filter(match_id=ids["matches"]).first().game_id  # type: ignore[union-attr]  # the match has games
        headers = {"alice": _bearer(alice, "schemathesis"), "olga": _bearer(olga, "schemathesis")}
        yield World(ids, headers)
        transaction.set_rollback(True)


@pytest.fixture
def wsgi_in_test_transaction() -> Iterator[None]:
    """Keep the test's connection (and its transaction) across WSGI requests.

    Django closes stale connections when a request starts and ends; its test client turns
    that off, and so must a test that calls the WSGI app directly.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def call_and_validate(case: Any, world: World) -> None:
    """Call the operation on the world's objects, as its caller, and run every check."""
    if not case.meta.is_negative_at(ParameterLocation.PATH):  # a bad id stays bad: 404 or 400
        case.path_parameters = {**case.path_parameters, **world.path_parameters(case.path)}
    case.call_and_validate(headers=world.caller(case.path))


@pytest.mark.django_db
@schema.parametrize()
@BOUNDED
def test_every_operation_on_real_data_answers_as_documented(
    case: Any, world: World, wsgi_in_test_transaction: None
) -> None:
    call_and_validate(case, world)


@pytest.mark.django_db
@rules_bodies.parametrize()
@settings(BOUNDED, phases=[Phase.generate])
def test_every_operation_taking_rules_answers_as_documented(
    case: Any, world: World, wsgi_in_test_transaction: None
) -> None:
    call_and_validate(case, world)


def _lists() -> list[str]:
    """The paths of every GET whose answer is a list: an array or a page of one."""
    paths = []
    for path, item in served.raw_schema["paths"].items():
        answer = item.get("get", {}).get("responses", {}).get("200", {})
        body = answer.get("content", {}).get("application/json", {}).get("schema", {})
        if body.get("type") == "array" or "Paginated" in body.get("$ref", ""):
            paths.append(path)
    return paths


@pytest.mark.django_db
@pytest.mark.parametrize("path", _lists())
def test_every_list_the_operations_read_has_rows(path: str, world: World) -> None:
    url = path.format(**world.path_parameters(path))

    response = APIClient().get(url, headers=world.caller(path))

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["results"] if isinstance(body, dict) else body) != []
