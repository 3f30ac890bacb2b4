"""Who may do what: every games endpoint and method, for every kind of caller.

The callers: anonymous, ``other`` (bob, signed in but not seated), ``owner`` (alice, who
created the table and sits at seat 0) and ``staff`` (not seated). carol holds the other
seat. Every refusal is checked to have written nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.engine import RuleSet, observe
from games.models import Event, Game, Seat
from tests.clients import authenticate
from tests.games.conftest import engine_state, game_url

Clients = Callable[[User], APIClient]
ROLES = ("anonymous", "other", "owner", "staff")
OPENING = {"type": "discard", "card": "comic_books"}  # seat 0's opening hand of seed 7

# Expected (status, code) by role; one value stands for every role.
Expected = tuple[int, str | None]
ALL_200: Expected = (200, None)
ANON: Expected = (401, "not_authenticated")
NOT_SEATED: Expected = (403, "not_seated")


def seated_only(ok: Expected) -> dict[str, Expected]:
    return {"anonymous": ANON, "other": NOT_SEATED, "owner": ok, "staff": NOT_SEATED}


def signed_in(expected: Expected) -> dict[str, Expected]:
    return {"anonymous": ANON, "other": expected, "owner": expected, "staff": expected}


def everyone(expected: Expected) -> dict[str, Expected]:
    return dict.fromkeys(ROLES, expected)


STAFF_ONLY = {
    "anonymous": ANON,
    "other": (403, "permission_denied"),
    "owner": (403, "permission_denied"),
    "staff": ALL_200,
}
NOT_OPEN: Expected = (409, "game_not_open")
NO_REPLAY: Expected = (409, "replay_not_available")

# (table, method, endpoint, data, expected by role)
MATRIX: list[tuple[str, str, str, Any, dict[str, Expected]]] = [
    # an open table: alice and carol seated, seat 2 free
    ("open", "get", "", None, everyone(ALL_200)),
    ("open", "get", "observation", None, everyone((409, "game_not_started"))),
    ("open", "get", "decision", None, seated_only(ALL_200)),
    ("open", "get", "events", None, everyone(ALL_200)),
    ("open", "get", "wait", {"after": 0, "timeout": 0}, everyone(ALL_200)),
    ("open", "get", "replay", None, everyone(NO_REPLAY)),
    ("open", "get", "replay/view", {"step": 0}, everyone(NO_REPLAY)),
    (
        "open",
        "post",
        "join",
        {},
        {
            "anonymous": ANON,
            "other": ALL_200,
            "owner": (409, "already_seated"),
            "staff": ALL_200,
        },
    ),
    ("open", "post", "leave", None, seated_only(ALL_200)),
    (
        "open",
        "post",
        "start",
        {},
        {
            "anonymous": ANON,
            "other": (403, "not_creator"),
            "owner": (409, "seats_not_filled"),
            "staff": (409, "seats_not_filled"),
        },
    ),
    (
        "open",
        "post",
        "actions",
        {"action": OPENING, "version": 0},
        seated_only((409, "game_not_started")),
    ),
    ("open", "post", "resign", None, seated_only((409, "game_not_started"))),
    ("open", "post", "abort", {}, STAFF_ONLY),
    # a full table, not started
    (
        "full",
        "post",
        "start",
        {},
        {"anonymous": ANON, "other": (403, "not_creator"), "owner": ALL_200, "staff": ALL_200},
    ),
    (
        "full",
        "post",
        "start",
        {"seed": 5},
        {
            "anonymous": ANON,
            "other": (403, "not_creator"),
            "owner": (403, "seed_forbidden"),
            "staff": ALL_200,
        },
    ),
    # a game in play, seat 0 (alice) to act
    ("active", "get", "", None, everyone(ALL_200)),
    ("active", "get", "observation", None, everyone(ALL_200)),
    ("active", "get", "decision", None, seated_only(ALL_200)),
    ("active", "get", "events", None, everyone(ALL_200)),
    ("active", "get", "wait", {"after": 0, "timeout": 0}, everyone(ALL_200)),
    ("active", "get", "replay", None, everyone(NO_REPLAY)),
    ("active", "get", "replay/view", {"step": 0}, everyone(NO_REPLAY)),
    ("active", "post", "actions", {"action": OPENING, "version": 0}, seated_only((201, None))),
    ("active", "post", "resign", None, seated_only(ALL_200)),
    ("active", "post", "abort", {}, STAFF_ONLY),
    ("active", "post", "join", {}, signed_in(NOT_OPEN)),
    ("active", "post", "leave", None, signed_in(NOT_OPEN)),
    (
        "active",
        "post",
        "start",
        {},
        {"anonymous": ANON, "other": (403, "not_creator"), "owner": NOT_OPEN, "staff": NOT_OPEN},
    ),
    # a finished game: carol resigned, alice won
    ("ended", "get", "", None, everyone(ALL_200)),
    ("ended", "get", "observation", None, everyone(ALL_200)),
    ("ended", "get", "decision", None, seated_only(ALL_200)),
    ("ended", "get", "events", None, everyone(ALL_200)),
    ("ended", "get", "wait", {"after": 0, "timeout": 0}, everyone(ALL_200)),
    ("ended", "get", "replay", None, everyone(ALL_200)),
    ("ended", "get", "replay/view", {"step": 1, "seat": 0}, everyone(ALL_200)),
    (
        "ended",
        "post",
        "actions",
        {"action": OPENING, "version": 1},
        seated_only((409, "game_over")),
    ),
    ("ended", "post", "resign", None, seated_only((409, "game_over"))),
    (
        "ended",
        "post",
        "abort",
        {},
        {**STAFF_ONLY, "staff": (409, "game_over")},
    ),
    ("ended", "post", "join", {}, signed_in(NOT_OPEN)),
    # forking a position: anyone signed in, once the game has ended (its replay is public)
    ("open", "post", "fork", {"step": 0}, signed_in(NO_REPLAY)),
    ("active", "post", "fork", {"step": 0}, signed_in(NO_REPLAY)),
    ("ended", "post", "fork", {"step": 0}, signed_in((201, None))),
    # the resource itself cannot be written
    ("active", "put", "", {}, signed_in((405, "method_not_allowed"))),
    ("active", "patch", "", {}, signed_in((405, "method_not_allowed"))),
    ("active", "delete", "", None, signed_in((405, "method_not_allowed"))),
]


def build_table(state: str, alice: User, carol: User, staff: User) -> Game:
    """A table in one of the matrix's states: open, full, active or ended."""
    if state == "open":
        game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
        services.game_join(game=game, user=carol)
        return game
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=carol)
    if state in ("active", "ended"):
        services.game_start(game=game, by=staff, seed=7)
    if state == "ended":
        services.game_resign(game=game, user=carol)
    return game


@pytest.fixture
def table_in(alice: User, carol: User, staff: User) -> Callable[[str], Game]:
    return lambda state: build_table(state, alice, carol, staff)


@pytest.fixture
def caller(alice: User, bob: User, staff: User) -> Callable[[str], APIClient]:
    """A client for a role: anonymous, other (bob), owner (alice) or staff."""
    users = {"other": bob, "owner": alice, "staff": staff}

    def build(role: str) -> APIClient:
        client = APIClient()
        if role in users:
            authenticate(client, users[role])
        return client

    return build


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything a request could change about a game."""
    game.refresh_from_db()
    seats = tuple(Seat.objects.filter(game=game).values_list("number", "user_id", "resigned_at"))
    return (
        game.status,
        game.version,
        game.seed,
        game.to_act,
        seats,
        Event.objects.filter(game=game).count(),
        Game.objects.filter(forked_from=game).count(),
    )


def request(client: APIClient, method: str, url: str, data: Any) -> Any:
    if method == "get":
        return client.get(url, data)
    return getattr(client, method)(url, data, format="json")


@pytest.mark.parametrize(
    ("table", "method", "endpoint", "data", "expected"),
    MATRIX,
    ids=[f"{t}-{m}-{e or 'detail'}-{i}" for i, (t, m, e, _, _) in enumerate(MATRIX)],
)
def test_permission_matrix(
    table_in: Callable[[str], Game],
    caller: Callable[[str], APIClient],
    table: str,
    method: str,
    endpoint: str,
    data: Any,
    expected: dict[str, Expected],
) -> None:
    """Each role in turn; refusals first, as they must leave the table as it was."""
    game = table_in(table)
    for role in sorted(ROLES, key=lambda role: expected[role][0] < 400):
        status, code = expected[role]
        if status < 400 and method != "get":
            game = table_in(table)  # a fresh table for each change
        before = snapshot(game)

        response = request(caller(role), method, game_url(game, endpoint), data)

        assert response.status_code == status, (role, response.content)
        body = response.json()
        if code is not None:
            assert body["code"] == code, role
        if status >= 400:
            assert set(body) == {"code", "message", "details", "request_id"}
            assert snapshot(game) == before, role
        elif method == "post":
            assert snapshot(game) != before, role


@pytest.mark.parametrize("role", ROLES)
def test_listing_games_is_open_to_everyone(
    table_in: Callable[[str], Game], caller: Callable[[str], APIClient], role: str
) -> None:
    games = [table_in(state) for state in ("open", "active", "ended")]

    response = caller(role).get("/api/v1/games/")

    assert response.status_code == 200
    assert [game["id"] for game in response.json()["results"]] == [g.pk for g in reversed(games)]


@pytest.mark.parametrize(("role", "status"), [("anonymous", 401), ("other", 201), ("staff", 201)])
def test_creating_a_table_needs_a_signed_in_user(
    caller: Callable[[str], APIClient], role: str, status: int
) -> None:
    response = caller(role).post("/api/v1/games/", {"seats": 2}, format="json")

    assert response.status_code == status
    assert Game.objects.count() == (1 if status == 201 else 0)


def test_an_unknown_token_is_refused_even_where_anonymous_callers_may_read(
    table_in: Callable[[str], Game],
) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer not-a-real-token")

    response = client.get(game_url(table_in("active")))

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_staff_see_no_hand_through_the_api(
    table_in: Callable[[str], Game], caller: Callable[[str], APIClient]
) -> None:
    game = table_in("active")
    state = engine_state(game)
    staff = caller("staff")

    observation = staff.get(game_url(game, "observation")).json()
    decision = staff.get(game_url(game, "decision"))

    assert observation == observe(state, None)
    assert observation["hand"] == []
    assert decision.status_code == 403
    assert decision.json()["code"] == "not_seated"


def test_the_seat_owner_sees_only_their_own_hand(
    table_in: Callable[[str], Game], caller: Callable[[str], APIClient]
) -> None:
    game = table_in("active")
    state = engine_state(game)

    observation = caller("owner").get(game_url(game, "observation")).json()

    assert observation == observe(state, 0)
    assert observation["hand"] == [state.table.keys[c] for c in state.hands[0].cards]


def test_only_staff_may_choose_the_seed_and_it_is_used(
    table_in: Callable[[str], Game], caller: Callable[[str], APIClient]
) -> None:
    game = table_in("full")

    refused = caller("owner").post(game_url(game, "start"), {"seed": 5}, format="json")
    started = caller("staff").post(game_url(game, "start"), {"seed": 5}, format="json")

    assert refused.status_code == 403
    assert refused.json()["code"] == "seed_forbidden"
    assert started.status_code == 200
    assert started.json()["seed"] is None  # secret until the game ends
    game.refresh_from_db()
    assert (game.status, game.seed) == ("active", 5)


def test_the_creator_starts_with_a_secret_random_seed(
    table_in: Callable[[str], Game], caller: Callable[[str], APIClient]
) -> None:
    game = table_in("full")

    response = caller("owner").post(game_url(game, "start"), {}, format="json")

    assert response.status_code == 200
    assert response.json()["seed"] is None
    game.refresh_from_db()
    assert game.status == "active"
    assert game.seed is not None


def test_the_schema_documents_exactly_the_endpoints_the_matrix_covers(api: APIClient) -> None:
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    documented = {
        (method, path)
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/games/")
        for method in item
    }
    covered = {("get", "/api/v1/games/"), ("post", "/api/v1/games/")}
    # the stream needs a live server: its roles are checked in tests/games/test_stream.py
    # (test_anyone_signed_in_may_follow_a_game_and_only_a_seat_hears_its_hand)
    covered.add(("get", "/api/v1/games/{id}/stream/"))
    covered |= {
        (method, "/api/v1/games/{id}/" + (f"{endpoint}/" if endpoint else ""))
        for _, method, endpoint, _, _ in MATRIX
    }

    assert documented <= covered
