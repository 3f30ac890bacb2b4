"""A player's page and its API twin (tournaments.players): history online and at clubs,
ratings with explained changes and a chart, statistics from the event log, head-to-head,
and roster guests."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games import services as game_services
from games.engine import RuleSet
from games.models import Event
from tests.games.conftest import play_to_end
from tests.pages import text
from tests.tournaments.conftest import Club, settled_game
from tests.tournaments.test_people_ratings import rated_game
from tournaments import people_ratings, players, tasks
from tournaments.player_stats import Finish, stats_of

pytestmark = pytest.mark.django_db


def test_statistics_count_steals_defences_stacks_and_assets_from_the_log() -> None:
    log = [
        [{"type": "challenge", "seat": 0, "target": 1}],
        [{"type": "challenge_end", "winner": 0, "challenger": 0, "holder": 1}],
        [{"type": "challenge", "seat": 1, "target": 0}],
        [{"type": "challenge_end", "winner": 0, "challenger": 1, "holder": 0}],
        [
            {
                "type": "round_end",
                "scores": [55_000, 10_000],
                "stacks": [[{"kind": "gold"}, {"kind": "home"}, {"kind": "gold"}], []],
            }
        ],
    ]

    stats = stats_of([Finish(1, 2, 55_000, 1), Finish(2, 4, 0, 0)], [(0, log)])

    assert (stats.games, stats.average_place, stats.wins, stats.rounds_won) == (2, 1.5, 1, 1)
    assert (stats.steals_tried, stats.steals_won) == (1, 1)
    assert (stats.defences, stats.defences_won) == (1, 1)
    assert (stats.biggest_stack, stats.best_round, stats.favourite_asset) == (3, 55_000, "gold")


def test_a_played_game_gives_statistics_that_agree_with_its_log(
    alice: User, bob: User, api_as: Callable[[User], APIClient]
) -> None:
    game = game_services.game_create(
        by=alice, rules=RuleSet.preset("2021", seats=2, ending="quick"), rated=True
    )
    game_services.game_join(game=game, user=bob)
    game_services.game_start(game=game, by=alice)
    play_to_end(game, {0: api_as(alice), 1: api_as(bob)}, rng=random.Random(3))
    game.refresh_from_db()
    people_ratings.online_game_rate(game_id=game.pk)

    stats = players.statistics(players.player_named("alice"))

    seat = game.seats.get(user=alice)
    challenges = sum(
        1
        for batch in Event.objects.filter(game=game).values_list("public_events", flat=True)
        for e in batch
        if e["type"] == "challenge" and e["seat"] == seat.number
    )
    assert (stats.games, stats.logged_games, stats.steals_tried) == (1, 1, challenges)
    assert stats.rounds_won == seat.round_wins
    assert stats.best_round > 0
    assert stats.favourite_asset is not None


def test_the_page_shows_ratings_a_chart_games_and_head_to_head(
    client: Client, alice: User, bob: User, carol: User
) -> None:
    for winner, loser in ((alice, bob), (alice, bob), (bob, alice), (alice, carol)):
        people_ratings.online_game_rate(game_id=rated_game(winner, loser).pk)

    response = client.get("/players/ALICE/?vs=bob")

    assert response.status_code == 200
    page = text(response.content)
    assert "Ratings" in page
    assert 'id="player-rating-chart"' in response.content.decode()
    assert "Expected place 1.5 of 2" in page
    assert "Against bob: 3 games, 2 finished above, 1 below, 0 level." in page
    assert "carol" in page  # an opponent, with the record


def test_an_unknown_opponent_is_said_beside_the_field(client: Client, alice: User) -> None:
    response = client.get("/players/alice/?vs=nobody")

    assert response.status_code == 200
    assert 'id="vs_error"' in response.content.decode()
    assert client.get("/players/nobody/").status_code == 404


def test_the_api_twin_answers_the_same_profile(api: APIClient, alice: User, bob: User) -> None:
    people_ratings.online_game_rate(game_id=rated_game(alice, bob).pk)

    body = api.get("/api/v1/players/alice/").json()
    versus = api.get("/api/v1/players/alice/head-to-head/", {"vs": "bob"}).json()
    unknown = api.get("/api/v1/players/nobody/")
    unknown_vs = api.get("/api/v1/players/alice/head-to-head/", {"vs": "nobody"})

    assert body["name"] == "alice"
    (online,) = body["ratings"]
    assert online["pool"] == "online"
    assert online["provisional"] is True
    assert online["changes"][0]["explanation"].startswith("Expected place 1.5 of 2")
    assert body["online_games"][0]["opponents"] == ["bob"]
    assert body["stats"]["wins"] == 1
    assert (versus["games"], versus["wins"], versus["losses"]) == (1, 1, 0)
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "not_found"
    assert unknown_vs.status_code == 422
    assert unknown_vs.json()["code"] == "no_such_user"


def test_a_roster_guest_has_a_page_of_their_club_games(
    client: Client, api: APIClient, club: Club, olga: User
) -> None:
    settled_game(club, olga, ["Alice", "Dora"], [100_000, 300_000])
    tasks.rate_club(club.season.league_id)  # sent once the result committed (the worker's)
    dora = club.players["Dora"].member
    assert dora is not None
    assert dora.user is None

    response = client.get(f"/players/guests/{dora.pk}/")
    body = api.get(f"/api/v1/members/{dora.pk}/profile/").json()

    assert response.status_code == 200
    page = text(response.content)
    assert "A guest on the roster of Tuesday Club" in page
    assert "Score sheet" in page
    assert body["guest"] is True
    assert body["ratings"][0]["pool"] == "Tuesday Club"
    assert body["club_games"][0]["place"] == 1
    assert body["stats"]["games"] == 1
