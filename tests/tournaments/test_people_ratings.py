"""People's ratings in the database (tournaments.people_ratings): a rated table moves its
players' online ratings once, explained; club ratings follow a league's results, guests
included; ``manage.py ratings_recompute`` rebuilds the same ratings from history."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import dispatch
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tests.tournaments.conftest import Club, settled_game
from tournaments import people_ratings, results, tasks
from tournaments.models import PersonRating, PersonRatingChange

pytestmark = pytest.mark.django_db


def rated_game(winner: User, loser: User, *, rated: bool = True) -> Game:
    """A two-seat table ``loser`` resigned: ``winner`` placed first."""
    game = game_services.game_create(by=winner, rules=RuleSet.preset("2021", seats=2), rated=rated)
    game_services.game_join(game=game, user=loser)
    game_services.game_start(game=game, by=winner)
    game_services.game_resign(game=game, user=loser)
    game.refresh_from_db()
    return game


def _online() -> dict[str, tuple[float, float, int]]:
    pool = people_ratings.online_pool()
    return {
        r.user.username: (round(r.mu, 9), round(r.sigma, 9), r.games)
        for r in PersonRating.objects.filter(pool=pool).select_related("user")
        if r.user is not None
    }


def test_a_rated_table_moves_its_players_online_ratings_once(alice: User, bob: User) -> None:
    game = rated_game(alice, bob)

    assert people_ratings.online_game_rate(game_id=game.pk) is True
    assert people_ratings.online_game_rate(game_id=game.pk) is False  # idempotent

    ratings = _online()
    assert ratings["alice"][0] > 25 > ratings["bob"][0]
    assert ratings["alice"][2] == ratings["bob"][2] == 1
    change = PersonRatingChange.objects.get(rating__user=alice)
    assert (change.place, change.table_size, change.expected_place) == (1, 2, 1.5)
    assert people_ratings.change_explained(change).startswith(
        "Expected place 1.5 of 2, finished 1 (better than expected): rating +"
    )


def test_an_unrated_table_moves_nothing(alice: User, bob: User) -> None:
    game = rated_game(alice, bob, rated=False)

    assert people_ratings.online_game_rate(game_id=game.pk) is False
    assert _online() == {}


def test_a_game_taken_out_of_order_gives_the_order_of_play(
    alice: User, bob: User, carol: User
) -> None:
    first, second, third = rated_game(alice, bob), rated_game(bob, carol), rated_game(carol, alice)
    for game in (first, third, second):  # second ended before third, rated after it
        people_ratings.online_game_rate(game_id=game.pk)
    as_recorded = _online()

    people_ratings.online_recompute()

    assert _online() == as_recorded
    numbers = PersonRatingChange.objects.filter(rating__user=bob).order_by("number")
    assert [c.game_id for c in numbers] == [first.pk, second.pk]


def test_recomputing_gives_the_same_ratings_and_explanations(
    alice: User, bob: User, carol: User
) -> None:
    for winner, loser in ((alice, bob), (bob, carol), (alice, carol), (carol, bob)):
        people_ratings.online_game_rate(game_id=rated_game(winner, loser).pk)
    before = _online()
    explained = sorted(people_ratings.change_explained(c) for c in PersonRatingChange.objects.all())

    out = StringIO()
    call_command("ratings_recompute", stdout=out)

    assert "from 4 rated games" in out.getvalue()
    assert _online() == before
    again = sorted(people_ratings.change_explained(c) for c in PersonRatingChange.objects.all())
    assert again == explained


def _club(club: Club) -> dict[str, tuple[float, int]]:
    pool = people_ratings.club_ratings_refresh(league=club.season.league)
    return {
        r.member.name: (round(r.mu, 9), r.games)
        for r in PersonRating.objects.filter(pool=pool).select_related("member")
        if r.member is not None
    }


def _settle(club: Club, olga: User, rounds: Sequence[tuple[list[str], list[int]]]) -> None:
    for names, dollars in rounds:
        settled_game(club, olga, names, dollars)


def test_club_ratings_follow_the_leagues_results_guests_included(club: Club, olga: User) -> None:
    _settle(club, olga, [(["Alice", "Dora"], [300_000, 100_000])])
    first = _club(club)
    _settle(club, olga, [(["Dora", "Bob"], [400_000, 100_000])])
    second = _club(club)

    assert set(first) == {"Alice", "Dora"}
    assert first["Alice"][0] > first["Dora"][0]
    assert set(second) == {"Alice", "Bob", "Dora"}
    assert second["Dora"][1] == 2
    assert second["Alice"] == first["Alice"]


def test_a_result_that_changes_sends_the_club_rating_task_and_pages_only_read(
    club: Club, olga: User, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, tuple[Any, ...]]] = []  # what the worker would be given
    monkeypatch.setattr(
        dispatch, "send_on_commit", lambda task, args: sent.append((task.name, args))
    )
    _settle(club, olga, [(["Alice", "Bob"], [300_000, 100_000])])
    league = club.season.league
    alice = club.players["Alice"].member
    assert alice is not None
    profile = f"/api/v1/members/{alice.pk}/profile/"

    before = api.get(profile).json()["ratings"]  # a read computes nothing
    assert set(sent) == {(results.RATE_CLUB, (league.pk,))}
    assert tasks.rate_club(league.pk) is True
    assert tasks.rate_club(league.pk) is False  # nothing changed since
    after = api.get(profile).json()["ratings"]

    assert before == []
    assert people_ratings.club_pool(league) is not None
    assert [r["pool"] for r in after] == ["Tuesday Club"]


def test_a_club_pool_is_recomputed_only_when_its_results_changed(
    club: Club, olga: User, django_assert_max_num_queries: object
) -> None:
    _settle(club, olga, [(["Alice", "Bob"], [300_000, 100_000])])
    pool = people_ratings.club_ratings_refresh(league=club.season.league)

    again = people_ratings.club_ratings_refresh(league=club.season.league)

    assert again.computed_at == pool.computed_at
    assert again.fingerprint == people_ratings.club_fingerprint(club.season.league)


def test_a_rated_tables_end_sends_its_rating_and_the_sweep_catches_a_lost_one(
    alice: User,
    bob: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(
        dispatch, "send", lambda task, args=(), **kw: sent.append((task.name, args))
    )
    with django_capture_on_commit_callbacks(execute=True):
        game = rated_game(alice, bob)

    assert ("tournaments.rate_online_game", (game.pk,)) in sent
    assert _online() == {}  # the task was only sent
    tasks.sync_results()
    assert set(_online()) == {"alice", "bob"}


def test_the_api_opens_a_rated_table_and_its_rematch_is_rated(
    api_as: Callable[[User], APIClient], alice: User, bob: User
) -> None:
    response = api_as(alice).post(
        "/api/v1/games/", {"preset": "2021", "seats": 2, "rated": True}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["rated"] is True
    game = Game.objects.get(pk=response.json()["id"])
    game_services.game_join(game=game, user=bob)
    game_services.game_start(game=game, by=alice)
    game_services.game_resign(game=game, user=bob)
    rematch = game_services.game_rematch(game=game, by=alice)
    assert rematch.rated is True
