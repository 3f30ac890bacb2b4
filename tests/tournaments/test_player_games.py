"""A player's games a page at a time (tournaments.players): the profile lists the latest 50
of each kind and links to the older ones; the API pages through all of them, and bad pages
get a clear error (JSON) or a 404 page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game, Seat
from tests.pages import text
from tests.tournaments.conftest import Club, settled_game
from tests.tournaments.test_people_ratings import rated_game
from tournaments import players
from tournaments.models import Member, Result

pytestmark = pytest.mark.django_db

MANY = players.RECENT + 7  # more than one page of the profile, and than three of the API's


def copies(game: Game, n: int) -> list[Game]:
    """``n`` copies of ``game`` with its seats and current results, each an hour older than
    the one before: games in bulk, without playing each."""
    clones = []
    for i in range(1, n + 1):
        clone = Game.objects.get(pk=game.pk)
        clone.pk = None
        clone.created_at = game.created_at - timedelta(hours=i)
        clone.finished_at = game.finished_at and game.finished_at - timedelta(hours=i)
        clones.append(clone)
    Game.objects.bulk_create(clones)
    seats = list(Seat.objects.filter(game=game))
    Seat.objects.bulk_create(_moved(row, clone) for clone in clones for row in seats)
    results = list(Result.objects.filter(game=game, valid_to__isnull=True))
    Result.objects.bulk_create(_moved(row, clone) for clone in clones for row in results)
    return clones


def _moved(row: Any, game: Game) -> Any:
    copy = type(row).objects.get(pk=row.pk)
    copy.pk = None
    copy.game = game
    return copy


@pytest.fixture
def online(alice: User, bob: User) -> list[int]:
    """Alice's games online, newest first: one she won against bob, then older copies."""
    game = rated_game(alice, bob)
    return [game.pk, *(g.pk for g in copies(game, MANY - 1))]


@pytest.fixture
def dora(club: Club, olga: User) -> Member:
    """A roster guest with MANY recorded games at the Tuesday Club, each won."""
    game = settled_game(club, olga, ["Alice", "Dora"], [100_000, 300_000])
    copies(game, MANY - 1)
    member = club.players["Dora"].member
    assert member is not None
    return member


def test_the_api_pages_through_every_game_online_newest_first(
    api: APIClient, online: list[int]
) -> None:
    first = api.get("/api/v1/players/ALICE/games/").json()
    pages = [first["results"]]
    target = first["next"]
    while target:
        body = api.get(target).json()
        pages.append(body["results"])
        target = body["next"]

    assert first["count"] == MANY
    assert first["previous"] is None
    assert [row["game"] for page in pages for row in page] == online
    assert len(pages) == -(-MANY // 20)  # the default page size
    assert first["results"][0] == {
        **first["results"][0],
        "place": 1,
        "table_size": 2,
        "opponents": ["bob"],
        "status": "finished",
    }
    assert "rounds_won" in first["results"][0]


def test_the_profile_lists_the_first_of_the_same_rows(api: APIClient, online: list[int]) -> None:
    profile = api.get("/api/v1/players/alice/").json()
    paged = api.get("/api/v1/players/alice/games/", {"page_size": 100}).json()

    assert len(profile["online_games"]) == players.RECENT
    assert profile["online_games"] == paged["results"][: players.RECENT]


def test_the_api_pages_through_a_guests_club_games(api: APIClient, dora: Member) -> None:
    body = api.get(f"/api/v1/members/{dora.pk}/club-games/", {"page": 3, "page_size": 25}).json()
    profile = api.get(f"/api/v1/members/{dora.pk}/profile/").json()
    online = api.get(f"/api/v1/members/{dora.pk}/games/").json()

    assert body["count"] == MANY
    assert len(body["results"]) == MANY - 50
    assert body["next"] is None
    assert body["previous"].endswith("page=2&page_size=25")
    assert {(r["place"], r["dollars"], r["table_size"]) for r in body["results"]} == {
        (1, 300_000, 2)
    }
    assert profile["club_games"][0]["rounds_won"] == 1
    assert (online["count"], online["results"]) == (0, [])  # a guest plays no games online


def test_an_accounts_club_games_are_paged_by_name(
    api: APIClient, club: Club, olga: User, alice: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Dora"], [300_000, 100_000])
    clones = copies(game, 2)

    body = api.get("/api/v1/players/alice/club-games/", {"page_size": 2}).json()

    assert body["count"] == 3
    assert [r["game"] for r in body["results"]] == [game.pk, clones[0].pk]
    assert body["results"][0]["competition"] == club.competition.name
    assert body["next"] is not None


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"page": 0}, 400, "invalid"),
        ({"page": "abc"}, 400, "invalid"),
        ({"page": 99}, 404, "not_found"),
        ({"page_size": 101}, 400, "invalid"),
        ({"vs": "bob"}, 400, "invalid"),  # head-to-head's parameter, not this list's
    ],
)
def test_a_bad_page_is_refused_with_a_clear_error(
    api: APIClient, alice: User, query: dict[str, Any], status: int, code: str
) -> None:
    for path in ("/api/v1/players/alice/games/", "/api/v1/players/alice/club-games/"):
        response = api.get(path, query)

        assert response.status_code == status
        assert response.json()["code"] == code


def test_an_unknown_player_or_roster_entry_has_no_games(api: APIClient) -> None:
    for path in (
        "/api/v1/players/nobody/games/",
        "/api/v1/players/nobody/club-games/",
        "/api/v1/members/999999/games/",
        "/api/v1/members/999999/club-games/",
    ):
        response = api.get(path)

        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_the_page_links_to_older_games_and_lists_them(client: Client, online: list[int]) -> None:
    profile = client.get("/players/alice/")
    older = client.get("/players/alice/games/?page=2")

    assert 'href="/players/alice/games/?page=2"' in profile.content.decode()
    assert f"Game {online[players.RECENT - 1]}" in text(profile.content)
    assert f"Game {online[players.RECENT]}" not in text(profile.content)
    assert older.status_code == 200
    page = text(older.content)
    assert f"Page 2 of 2, newest first: {MANY} games in all." in page
    assert all(f"Game {pk}" in page for pk in online[players.RECENT :])
    assert f"Game {online[players.RECENT - 1]}" not in page
    assert 'href="/players/alice/games/?page=1"' in older.content.decode()  # newer games


def test_a_guests_page_links_to_older_club_games(client: Client, dora: Member) -> None:
    profile = client.get(f"/players/guests/{dora.pk}/")
    older = client.get(f"/players/guests/{dora.pk}/club-games/?page=2")

    assert f'href="/players/guests/{dora.pk}/club-games/?page=2"' in profile.content.decode()
    assert older.status_code == 200
    page = text(older.content)
    assert f"Page 2 of 2, newest first: {MANY} games in all." in page
    assert page.count("Score sheet") == MANY - players.RECENT
    assert page.count("1 of 2 1 round won") == MANY - players.RECENT  # place, rounds won
    assert "$300,000" in page


def test_a_page_with_one_page_of_games_has_no_older_link(
    client: Client, alice: User, bob: User
) -> None:
    rated_game(alice, bob)

    profile = client.get("/players/alice/")
    only = client.get("/players/alice/games/")

    assert "Older games" not in text(profile.content)
    assert "Page 1 of 1, newest first: 1 game in all." in text(only.content)
    assert "Older games" not in text(only.content)


@pytest.mark.parametrize("page", ["0", "abc", "3", "-1"])
def test_a_bad_page_of_games_is_a_404_page(client: Client, online: list[int], page: str) -> None:
    assert client.get(f"/players/alice/games/?page={page}").status_code == 404
    assert client.get(f"/players/alice/club-games/?page={page}").status_code == 404


def test_an_unknown_players_games_are_a_404_page(client: Client) -> None:
    assert client.get("/players/nobody/games/").status_code == 404
    assert client.get("/players/guests/999999/club-games/").status_code == 404


@pytest.mark.parametrize(
    ("path", "budget"),
    [
        ("/players/alice/games/", 9),
        ("/api/v1/players/alice/games/", 8),
        ("/players/alice/", 21),
        ("/api/v1/players/alice/", 19),
    ],
)
def test_a_players_games_take_the_same_queries_however_many(
    api: APIClient,
    alice: User,
    bob: User,
    path: str,
    budget: int,
    django_assert_max_num_queries: Any,
) -> None:
    api.force_login(alice)  # a signed-in visitor: the session and the your-turn strip too
    game = rated_game(alice, bob)
    with django_assert_max_num_queries(budget) as few:
        assert api.get(path).status_code == 200

    copies(game, MANY)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = api.get(path + "?page=2" if path.endswith("games/") else path)

    assert response.status_code == 200


@pytest.mark.parametrize(
    "path", ["/players/guests/{}/club-games/", "/api/v1/members/{}/club-games/"]
)
def test_a_guests_club_games_take_the_same_queries_however_many(
    api: APIClient, club: Club, olga: User, path: str, django_assert_max_num_queries: Any
) -> None:
    game = settled_game(club, olga, ["Alice", "Dora"], [100_000, 300_000])
    dora = club.players["Dora"].member
    assert dora is not None
    with django_assert_max_num_queries(8) as few:
        assert api.get(path.format(dora.pk)).status_code == 200

    copies(game, MANY)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = api.get(path.format(dora.pk) + "?page=2")

    assert response.status_code == 200
