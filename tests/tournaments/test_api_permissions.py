"""Who may call every tournaments endpoint, and what bad input gets back.

The roles: anonymous; ``mallory``, signed in but nobody here; bob, a player in the league
and the tournament, seated at the recorded table (alice entered its first round, bob
has not voted); olga, who organises the league and the tournaments; and staff. Reads
are public. Every refusal answers the one JSON error shape with a stable code and
changes nothing; every allowed write changes something.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import models
from rest_framework.test import APIClient

from accounts.models import User
from bots.models import BotVersion
from games.engine import RuleSet
from games.models import Game
from tests.factories import UserFactory
from tests.tournaments.conftest import QUICK, Club, recorded_game
from tournaments import discipline, nights, recording, running
from tournaments.models import (
    ChangeLog,
    CheckIn,
    Competitor,
    GameNight,
    League,
    Member,
    NightRound,
    Penalty,
    ScoreRecord,
    ScoreVote,
    Season,
    Substitution,
    Tournament,
    TournamentRound,
    Webhook,
)

ROLES = ("anonymous", "other", "player", "organiser", "staff")
WATCHED: tuple[type[models.Model], ...] = (
    League, Season, GameNight, Competitor, Game, ScoreRecord, ScoreVote, ChangeLog, Webhook,
    Tournament, TournamentRound, Member, CheckIn, NightRound, Substitution, Penalty,
)  # fmt: skip


@pytest.fixture(autouse=True)
def _club_host(hosts: dict[str, list[str]]) -> None:
    """The club's webhook host resolves, to loopback: no delivery is sent here."""
    hosts["club.example"] = ["127.0.0.1"]


@dataclass
class World:
    """Everything the endpoints act on."""

    club: Club
    game: Game  # alice and bob's recorded table, round 1 entered by alice
    draft: Tournament  # olga's, taking entrants (alice and bob entered)
    running: Tournament  # olga's, round 1 playing
    penalty: Penalty  # olga gave Alice, in the season


@pytest.fixture
def world(club: Club, olga: User, alice: User, bob: User) -> World:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=RuleSet.preset("2021"))
    recording.round_record(game=game, by=alice, dollars=[100_000, 50_000])
    tournaments = []
    for name in ("Draft Cup", "Running Cup"):
        tournament = running.tournament_create(
            by=olga, name=name, format="round_robin", entrants="humans", rules=QUICK,
            rounds=2, table_sizes=[2], preferred_size=2, play="recorded",
        )  # fmt: skip
        running.entrant_add(tournament=tournament, by=olga, user=alice)
        running.entrant_add(tournament=tournament, by=olga, user=bob)
        tournaments.append(tournament)
    running.tournament_start(tournament=tournaments[1], by=olga)
    for name in ("Alice", "Bob"):
        nights.night_check_in(night=club.night, by=olga, member=Member.objects.get(name=name))
    penalty = discipline.penalty_give(
        competition=club.competition, by=olga, competitor=club.players["Alice"],
        kind="points", amount=0.25, reason="slow play",
    )  # fmt: skip
    return World(club, game, tournaments[0], tournaments[1], penalty)


@pytest.fixture
def as_role(
    api: APIClient, api_as: Callable[[User], APIClient], olga: User, bob: User, staff: User
) -> Callable[[str], APIClient]:
    users = {"player": bob, "organiser": olga, "staff": staff}

    def client(role: str) -> APIClient:
        if role == "anonymous":
            return api
        if role == "other":
            return api_as(UserFactory.create(username="mallory"))
        return api_as(users[role])

    return client


def snapshot() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in WATCHED}


# (method, url, body, expected status by role; a code for refusals)
Expect = dict[str, tuple[int, str | None]]
PUBLIC: Expect = dict.fromkeys(ROLES, (200, None))
SIGNED_IN = 201
DENIED = (403, "permission_denied")
ANON = (401, "not_authenticated")


def organisers_only(ok: int, refusal: tuple[int, str] = DENIED) -> Expect:
    return {
        "anonymous": ANON,
        "other": refusal,
        "player": refusal,
        "organiser": (ok, None),
        "staff": (ok, None),
    }


def endpoints(w: World) -> list[tuple[str, str, str, dict[str, Any] | None, Expect]]:
    comp = w.club.competition.pk
    league = w.club.season.league_id
    season = w.club.season.pk
    night = w.club.night.pk
    game = w.game.pk
    ids = {n: c.pk for n, c in w.club.players.items()}
    members = {n: c.member_id for n, c in w.club.players.items()}
    anyone_signed_in: Expect = {
        "anonymous": ANON,
        **dict.fromkeys(("other", "player", "organiser", "staff"), (SIGNED_IN, None)),
    }
    at_the_table: Expect = {
        "anonymous": ANON,
        "other": (403, "not_seated"),
        "player": (200, None),
        "organiser": (200, None),
        "staff": (200, None),
    }
    return [
        ("list leagues", "get", "/api/v1/leagues/", None, PUBLIC),
        ("read a league", "get", f"/api/v1/leagues/{league}/", None, PUBLIC),
        (
            "create a league",
            "post",
            "/api/v1/leagues/",
            {"name": "Thursday", "slug": "thursday"},
            anyone_signed_in,
        ),
        (
            "add an organiser",
            "post",
            f"/api/v1/leagues/{league}/organisers/",
            {"username": "carol"},
            organisers_only(200),
        ),
        (
            "change the league's settings",
            "post",
            f"/api/v1/leagues/{league}/settings/",
            {"organiser_entries_settle": False},
            organisers_only(200),
        ),
        (
            "start a season",
            "post",
            f"/api/v1/leagues/{league}/seasons/",
            {"name": "Summer", "starts_on": "2026-06-01"},
            organisers_only(201),
        ),
        ("read a season", "get", f"/api/v1/seasons/{season}/", None, PUBLIC),
        (
            "add a night",
            "post",
            f"/api/v1/seasons/{season}/nights/",
            {"date": "2026-03-10"},
            organisers_only(201),
        ),
        ("read a night", "get", f"/api/v1/nights/{night}/", None, PUBLIC),
        (
            "start a digital table",
            "post",
            f"/api/v1/nights/{night}/games/",
            {"competitors": [ids["Alice"], ids["Bob"]]},
            organisers_only(201),
        ),
        (
            "open a recorded table",
            "post",
            f"/api/v1/nights/{night}/recorded/",
            {"competitors": [ids["Bob"], ids["Carol"]]},
            {
                "anonymous": ANON,
                "other": DENIED,
                "player": (201, None),  # bob sits at it
                "organiser": (201, None),
                "staff": (201, None),
            },
        ),
        ("roster", "get", f"/api/v1/leagues/{league}/members/", None, PUBLIC),
        (
            "put a player on the roster",
            "post",
            f"/api/v1/leagues/{league}/members/",
            {"name": "Erin"},
            organisers_only(201),
        ),
        ("read a roster member", "get", f"/api/v1/members/{members['Dora']}/", None, PUBLIC),
        (
            "a roster member's games",
            "get",
            f"/api/v1/members/{members['Bob']}/games/",
            None,
            PUBLIC,
        ),
        (
            "a roster member's club games",
            "get",
            f"/api/v1/members/{members['Dora']}/club-games/",
            None,
            PUBLIC,
        ),
        (
            "link a guest to an account",
            "post",
            f"/api/v1/members/{members['Dora']}/link/",
            {"username": "staff"},
            organisers_only(200),
        ),
        ("check-ins", "get", f"/api/v1/nights/{night}/checkins/", None, PUBLIC),
        (
            "check a player in",
            "post",
            f"/api/v1/nights/{night}/checkins/",
            {"member": members["Dora"]},
            organisers_only(201),
        ),
        (
            "check a player out",
            "delete",
            f"/api/v1/nights/{night}/checkins/{members['Alice']}/",
            None,
            organisers_only(204),
        ),
        (
            "draw the seating",
            "post",
            f"/api/v1/nights/{night}/draw/",
            {"table_sizes": [2], "preferred_size": 2},
            organisers_only(201),
        ),
        ("a night's rounds", "get", f"/api/v1/nights/{night}/rounds/", None, PUBLIC),
        (
            "the organiser's desk",
            "get",
            f"/api/v1/nights/{night}/desk/",
            None,
            organisers_only(200),
        ),
        (
            "the round clock",
            "get",
            f"/api/v1/nights/{night}/clock/",
            None,
            dict.fromkeys(ROLES, (204, None)),  # none runs yet
        ),
        (
            "start the round clock",
            "post",
            f"/api/v1/nights/{night}/clock/",
            {"action": "start"},
            organisers_only(409),  # allowed, but nothing is drawn yet
        ),
        ("read a competition", "get", f"/api/v1/competitions/{comp}/", None, PUBLIC),
        ("list competitors", "get", f"/api/v1/competitions/{comp}/competitors/", None, PUBLIC),
        (
            "add a competitor",
            "post",
            f"/api/v1/competitions/{comp}/competitors/",
            {"name": "Eve"},
            organisers_only(201),
        ),
        ("standings", "get", f"/api/v1/competitions/{comp}/standings/", None, PUBLIC),
        (
            "standings as CSV",
            "get",
            f"/api/v1/competitions/{comp}/standings/?format=csv",
            None,
            PUBLIC,
        ),
        ("games", "get", f"/api/v1/competitions/{comp}/games/", None, PUBLIC),
        ("change log", "get", f"/api/v1/competitions/{comp}/changes/", None, PUBLIC),
        (
            "subscribe a webhook",
            "post",
            f"/api/v1/competitions/{comp}/webhooks/",
            {"url": "https://club.example/hooks"},
            organisers_only(201),
        ),
        ("score sheet", "get", f"/api/v1/recorded-games/{game}/rounds/", None, PUBLIC),
        (
            "enter a round",
            "post",
            f"/api/v1/recorded-games/{game}/rounds/",
            {"dollars": [10_000, 0], "round": 2},
            {**at_the_table, "player": (201, None), "organiser": (201, None), "staff": (201, None)},
        ),
        (
            "vote on a round",
            "post",
            f"/api/v1/recorded-games/{game}/rounds/1/votes/",
            {"verdict": "confirm"},
            at_the_table,
        ),
        (
            "correct a round",
            "post",
            f"/api/v1/recorded-games/{game}/rounds/1/correction/",
            {"dollars": [50_000, 100_000], "reason": "swapped"},
            organisers_only(201),
        ),
        ("substitutes", "get", f"/api/v1/recorded-games/{game}/substitutes/", None, PUBLIC),
        (
            "seat a substitute",
            "post",
            f"/api/v1/recorded-games/{game}/substitutes/",
            {"seat": 1, "name": "Zed", "reason": "left early"},
            organisers_only(201),
        ),
        ("penalties", "get", f"/api/v1/competitions/{comp}/penalties/", None, PUBLIC),
        (
            "give a penalty",
            "post",
            f"/api/v1/competitions/{comp}/penalties/",
            {"competitor": ids["Bob"], "kind": "points", "amount": 0.5, "reason": "late"},
            organisers_only(201),
        ),
        (
            "withdraw a penalty",
            "post",
            f"/api/v1/competitions/{comp}/penalties/withdraw/",
            {"penalty": w.penalty.pk, "reason": "a mistake"},
            organisers_only(200),
        ),
        ("list tournaments", "get", "/api/v1/tournaments/", None, PUBLIC),
        ("read a tournament", "get", f"/api/v1/tournaments/{w.draft.pk}/", None, PUBLIC),
        (
            "create a tournament",
            "post",
            "/api/v1/tournaments/",
            {"name": "Open", "format": "swiss", "entrants": "humans", "rounds": 3},
            anyone_signed_in,
        ),
        (
            "start a tournament",
            "post",
            f"/api/v1/tournaments/{w.draft.pk}/start/",
            None,
            organisers_only(200),
        ),
        (
            "advance a round",
            "post",
            f"/api/v1/tournaments/{w.running.pk}/rounds/1/advance/",
            None,
            organisers_only(409),  # allowed, but the round's table has not finished
        ),
    ]


NAMES = (
    "list leagues", "read a league", "create a league", "add an organiser",
    "change the league's settings", "start a season",
    "read a season", "add a night", "read a night", "start a digital table",
    "open a recorded table", "roster", "put a player on the roster", "read a roster member",
    "a roster member's games", "a roster member's club games",
    "link a guest to an account", "check-ins", "check a player in", "check a player out",
    "draw the seating", "a night's rounds", "the organiser's desk", "the round clock",
    "start the round clock", "read a competition",
    "list competitors",
    "add a competitor",
    "standings", "standings as CSV", "games", "change log", "subscribe a webhook",
    "score sheet", "enter a round", "vote on a round", "correct a round", "substitutes",
    "seat a substitute", "penalties", "give a penalty", "withdraw a penalty",
    "list tournaments",
    "read a tournament", "create a tournament", "start a tournament", "advance a round",
)  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", NAMES)
def test_every_endpoint_answers_each_role_as_documented(
    world: World, as_role: Callable[[str], APIClient], role: str, endpoint: str
) -> None:
    name, method, url, body, expected = next(e for e in endpoints(world) if e[0] == endpoint)
    status, code = expected[role]
    client = as_role(role)
    before = snapshot()
    response = (
        getattr(client, method)(url, body, format="json")
        if body is not None
        else (getattr(client, method)(url))
    )
    assert response.status_code == status, (name, response.content[:300])
    changed = snapshot() != before
    if status >= 400:
        error = response.json()
        assert set(error) == {"code", "message", "details", "request_id"}, name
        if code is not None:
            assert error["code"] == code, name
        assert not changed, f"{name}: a refused request changed {before} to {snapshot()}"
    elif method in ("post", "delete"):
        assert changed, f"{name}: an allowed write changed nothing"
    else:
        assert not changed


def test_the_endpoint_table_covers_every_route(world: World) -> None:
    from tournaments.api.urls import router

    assert tuple(e[0] for e in endpoints(world)) == NAMES
    routes = {route.name for route in router.urls}  # type: ignore[union-attr]
    covered = {
        "league-list", "league-detail", "league-organisers", "league-seasons", "season-detail",
        "season-nights", "night-detail", "night-games", "night-recorded", "competition-detail",
        "competition-competitors", "competition-standings", "competition-games",
        "competition-changes", "competition-webhooks", "recorded-game-rounds",
        "recorded-game-votes", "recorded-game-correction", "tournament-list", "tournament-detail",
        "tournament-start", "tournament-advance", "league-members", "member-detail",
        "member-link", "night-checkins", "night-checkout", "night-draw", "night-rounds",
        "night-desk", "night-clock", "league-change-settings", "recorded-game-substitutes",
        "competition-penalties", "competition-penalty-withdraw", "member-games",
        "member-club-games",
        # public reads and one's own queue: their permissions are tested beside them
        # (tests/tournaments/test_players.py, test_quickplay.py)
        "player-detail", "player-head-to-head", "member-profile", "player-games",
        "player-club-games",
        "quick-pairing-list", "quick-pairing-mine", "quick-pairing-leave",
    }  # fmt: skip
    assert routes == covered


# --- bad input ------------------------------------------------------------------------------


def test_unknown_objects_are_json_404s(as_role: Callable[[str], APIClient]) -> None:
    client = as_role("staff")
    for url in (
        "/api/v1/leagues/999999/",
        "/api/v1/seasons/999999/",
        "/api/v1/nights/999999/",
        "/api/v1/competitions/999999/standings/",
        "/api/v1/recorded-games/999999/rounds/",
        "/api/v1/tournaments/999999/",
    ):
        response = client.get(url)
        assert (response.status_code, response.json()["code"]) == (404, "not_found"), url


def test_changes_outside_the_services_are_405(
    world: World, as_role: Callable[[str], APIClient]
) -> None:
    client = as_role("staff")
    for url in (
        f"/api/v1/leagues/{world.club.season.league_id}/",
        f"/api/v1/tournaments/{world.draft.pk}/",
        f"/api/v1/competitions/{world.club.competition.pk}/",
    ):
        for method in ("put", "patch", "delete"):
            response = getattr(client, method)(url, {}, format="json")
            assert (response.status_code, response.json()["code"]) == (405, "method_not_allowed")


@pytest.mark.parametrize(
    ("route", "body", "status", "code"),
    [
        ("league", {"name": "Tuesday Again", "slug": "tuesday"}, 409, "slug_taken"),
        ("league", {"name": "X", "slug": "not a slug"}, 400, "invalid"),
        ("league", {"name": "X", "slug": "x", "rules": {"preset": "1999"}}, 400, "invalid"),
        (
            "league",
            {"name": "X", "slug": "x", "rules": {"options": {"max_players": 9}}},
            422,
            "invalid_rules",
        ),
        ("organisers", {"username": "nobody"}, 422, "no_such_user"),
        ("organisers", {}, 400, "invalid"),
        (
            "seasons",
            {"name": "S", "starts_on": "2026-06-01", "ends_on": "2026-05-01"},
            422,
            "invalid",
        ),
        ("seasons", {"name": "S", "starts_on": "2026-06-01", "best_of": 0}, 400, "invalid"),
        ("seasons", {"name": "S", "starts_on": "June"}, 400, "invalid"),
        ("nights", {"date": "someday"}, 400, "invalid"),
        ("competitors", {"name": "alice"}, 409, "name_taken"),  # names ignore letter case
        ("competitors", {"username": "alice"}, 409, "name_taken"),
        ("competitors", {"name": "Alice 2", "username": "alice"}, 409, "already_entered"),
        ("competitors", {"username": "nobody"}, 422, "no_such_user"),
        ("competitors", {"name": "Bot", "bot_version": 999999}, 404, "not_found"),
        ("competitors", {}, 422, "invalid"),
        ("webhooks", {"url": "ftp://club.example/"}, 422, "invalid"),
        ("webhooks", {"url": "https://club.example/", "secret": "short"}, 422, "invalid"),
        (
            "tournaments",
            {"name": "T", "format": "knockout", "entrants": "humans", "rounds": 2},
            400,
            "invalid",
        ),
        (
            "tournaments",
            {
                "name": "T",
                "format": "swiss",
                "entrants": "humans",
                "rounds": 2,
                "table_sizes": [3, 4],
                "preferred_size": 6,
            },
            422,
            "invalid",
        ),
        (
            "tournaments",
            {
                "name": "T",
                "format": "swiss",
                "entrants": "humans",
                "rounds": 2,
                "tiebreaks": ["points", "points"],
            },
            422,
            "invalid_tiebreaks",
        ),
        (
            "tournaments",
            {"name": "T", "format": "swiss", "entrants": "humans", "rounds": 99},
            400,
            "invalid",
        ),
        (
            "tournaments",
            {"name": "T", "format": "swiss", "entrants": "bots", "rounds": 2, "play": "recorded"},
            422,
            "invalid",
        ),
    ],
)
def test_bad_input_gets_a_stable_code_and_changes_nothing(
    world: World,
    as_role: Callable[[str], APIClient],
    route: str,
    body: dict[str, Any],
    status: int,
    code: str,
) -> None:
    league = world.club.season.league_id
    urls = {
        "league": "/api/v1/leagues/",
        "organisers": f"/api/v1/leagues/{league}/organisers/",
        "seasons": f"/api/v1/leagues/{league}/seasons/",
        "nights": f"/api/v1/seasons/{world.club.season.pk}/nights/",
        "competitors": f"/api/v1/competitions/{world.club.competition.pk}/competitors/",
        "webhooks": f"/api/v1/competitions/{world.club.competition.pk}/webhooks/",
        "tournaments": "/api/v1/tournaments/",
    }
    before = snapshot()
    response = as_role("organiser").post(urls[route], body, format="json")
    assert (response.status_code, response.json()["code"]) == (status, code), response.json()
    assert snapshot() == before


def test_a_started_tournament_refuses_entrants_and_a_second_start(
    world: World, as_role: Callable[[str], APIClient]
) -> None:
    client = as_role("organiser")
    competition = world.running.competition_id
    before = snapshot()
    late = client.post(
        f"/api/v1/competitions/{competition}/competitors/", {"name": "Late"}, format="json"
    )
    assert (late.status_code, late.json()["code"]) == (409, "tournament_started")
    again = client.post(f"/api/v1/tournaments/{world.running.pk}/start/")
    assert (again.status_code, again.json()["code"]) == (409, "tournament_started")
    assert snapshot() == before


def test_a_tournament_too_small_to_seat_cannot_start(
    as_role: Callable[[str], APIClient], olga: User
) -> None:
    client = as_role("organiser")
    created = client.post(
        "/api/v1/tournaments/",
        {"name": "Tiny", "format": "round_robin", "entrants": "humans", "rounds": 1,
         "play": "recorded", "table_sizes": [4], "preferred_size": 4},
        format="json",
    )  # fmt: skip
    tournament = created.json()["id"]
    competition = created.json()["competition"]["id"]
    for name in ("Ann", "Ben", "Cat"):
        client.post(f"/api/v1/competitions/{competition}/competitors/", {"name": name})
    response = client.post(f"/api/v1/tournaments/{tournament}/start/")
    assert (response.status_code, response.json()["code"]) == (422, "cannot_seat")
    assert response.json()["details"] == {"entrants": 3}
    assert Tournament.objects.get(pk=tournament).status == "draft"


def test_a_bot_tournament_takes_only_ready_bot_versions(
    as_role: Callable[[str], APIClient], alice: User
) -> None:
    from bots.validation import builtin_versions

    ready = builtin_versions()[0]
    pending = BotVersion.objects.create(bot=ready.bot, number=5, strategy="random")
    client = as_role("organiser")
    created = client.post(
        "/api/v1/tournaments/",
        {"name": "Bots", "format": "round_robin", "entrants": "bots", "rounds": 1},
        format="json",
    ).json()
    url = f"/api/v1/competitions/{created['competition']['id']}/competitors/"
    refused = client.post(url, {"bot_version": pending.pk}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (422, "invalid")
    person = client.post(url, {"username": "alice"}, format="json")
    assert (person.status_code, person.json()["code"]) == (422, "invalid")
    added = client.post(url, {"bot_version": ready.pk}, format="json")
    assert added.status_code == 201
    assert added.json()["name"] == f"{ready.bot.name} v{ready.number}"
