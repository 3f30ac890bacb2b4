"""Standings over the database (tournaments.selectors): small leagues computed by hand.

Games are recorded with the quick ending (one round decides them) and entered by the
organiser, so they count at once. Placement points are (n - place) / (n - 1): at a
table of two the winner gets 1 and the other 0; at a table of three 1, 0.5 and 0.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from tests.tournaments.conftest import QUICK, Club, settled_game
from tests.tournaments.test_nights import check_in, finish
from tournaments import nights, recording, running, selectors, services
from tournaments.models import ChangeLog, Competitor, GameEntry, GameNight, Result


def table(club: Club, as_of: dt.datetime | None = None) -> list[tuple[str, float]]:
    """(name, points) in standing order."""
    return [(r["name"], r["points"]) for r in selectors.standings(club.competition, as_of=as_of)]


def rows(club: Club, as_of: dt.datetime | None = None) -> dict[str, dict[str, Any]]:
    """Standing rows by name."""
    return {r["name"]: r for r in selectors.standings(club.competition, as_of=as_of)}


def order_by(club: Club, tiebreaks: list[str]) -> None:
    club.competition.tiebreaks = tiebreaks
    club.competition.save(update_fields=["tiebreaks"])


def at_no_night(club: Club, olga: User, names: list[str], dollars: list[int]) -> None:
    """A season's game played at no night (a digital one), its one round entered."""
    game = recording.recorded_game_create(
        by=olga, competition=club.competition, competitors=club.at(*names), rules=QUICK
    )
    recording.round_record(game=game, by=olga, dollars=dollars)


def best_of(club: Club, nights: int) -> None:
    club.competition.best_of = nights
    club.competition.save(update_fields=["best_of"])


def test_standings_total_each_metric_over_the_counted_games(club: Club, olga: User) -> None:
    settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    settled_game(club, olga, ["Bob", "Alice"], [150_000, 50_000])
    standing = rows(club)
    alice, bob = standing["Alice"], standing["Bob"]
    assert alice["games"] == bob["games"] == 2
    assert (alice["points"], bob["points"]) == (1.0, 1.5)
    assert (alice["placement"], bob["placement"]) == (0.5, 0.75)
    # DSI: $300k of $600k at 3 seats is 1.5; $50k of $200k at 2 seats is 0.5
    assert alice["dsi"] == pytest.approx((1.5 + 0.5) / 2)  # rounded to 4 places
    assert alice["best_dsi"] == 1.5
    assert bob["dsi"] == pytest.approx((1.0 + 1.5) / 2)
    assert alice["dollars"] == 350_000
    assert (alice["wins"], bob["wins"]) == (1, 1)
    assert (alice["rounds_won"], bob["rounds_won"]) == (1, 1)
    assert [r["name"] for r in selectors.standings(club.competition)] == [
        "Bob",
        "Alice",
        "Carol",
        "Dora",  # no games yet: listed, with zeros, last
    ]
    assert (standing["Dora"]["games"], standing["Dora"]["points"]) == (0, 0.0)
    assert [r["rank"] for r in selectors.standings(club.competition)] == [1, 2, 3, 4]


def test_dsi_makes_a_six_seat_win_worth_a_four_seat_win(club: Club, olga: User) -> None:
    for name in ("Eve", "Finn", "Gus", "Hana", "Ivo"):
        club.players[name] = services.competitor_add(
            competition=club.competition, by=olga, name=name
        )
    # both tables share $900,000: six seats split it six ways, four seats four ways
    six = ["Alice", "Carol", "Eve", "Finn", "Gus", "Hana"]
    settled_game(club, olga, six, [300_000, 200_000, 100_000, 100_000, 100_000, 100_000])
    four = ["Bob", "Dora", "Ivo", "Gus"]
    settled_game(club, olga, four, [450_000, 250_000, 100_000, 100_000])
    standing = rows(club)
    alice, bob = standing["Alice"], standing["Bob"]
    assert alice["dollars"] == 300_000 < bob["dollars"] == 450_000
    assert alice["dsi"] == pytest.approx(2.0)  # $300k against a $150k average
    assert bob["dsi"] == pytest.approx(2.0)  # $450k against a $225k average
    assert alice["placement"] == bob["placement"] == 1.0
    assert standing["Carol"]["placement"] == pytest.approx(0.8)  # 2nd of 6: (6 - 2) / 5
    assert standing["Dora"]["placement"] == pytest.approx(2 / 3, abs=1e-4)  # 2nd of 4
    assert standing["Carol"]["dsi"] == pytest.approx(200_000 / 150_000, abs=1e-4)
    assert standing["Dora"]["dsi"] == pytest.approx(250_000 / 225_000, abs=1e-4)
    # ranked by DSI alone, the two winners tie whatever their raw dollars: the lot decides
    order_by(club, ["dsi"])
    top = selectors.standings(club.competition)[:2]
    assert {r["name"] for r in top} == {"Alice", "Bob"}
    assert all(r["decided_by"] == ["dsi", "lot"] for r in top)


# --- head-to-head and strength of schedule, by hand ------------------------------------------


def test_head_to_head_separates_a_tie_by_the_games_between_the_tied(club: Club, olga: User) -> None:
    """Alice and Carol both have 1.0 point; Alice finished ahead of Carol when they met."""
    settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    settled_game(club, olga, ["Bob", "Dora"], [200_000, 100_000])
    settled_game(club, olga, ["Carol", "Dora"], [200_000, 100_000])
    order_by(club, ["points", "head_to_head"])
    standing = selectors.standings(club.competition)
    assert [(r["name"], r["points"]) for r in standing] == [
        ("Bob", 1.5),
        ("Alice", 1.0),
        ("Carol", 1.0),
        ("Dora", 0.0),
    ]
    assert standing[1]["decided_by"] == ["points", "head_to_head"]
    detail = selectors._Detail(selectors.results_at(club.competition, None))
    ids = {n: club.players[n].pk for n in ("Alice", "Bob", "Carol", "Dora")}
    assert detail.head_to_head([ids["Alice"], ids["Carol"]]) == {
        ids["Alice"]: 1.0,
        ids["Carol"]: 0.0,
    }
    # among all four: Bob beat Carol (G1) and Dora (G2); Carol beat Dora (G3)
    assert detail.head_to_head(list(ids.values())) == {
        ids["Alice"]: 2.0,
        ids["Bob"]: 2.0,
        ids["Carol"]: 1.0,
        ids["Dora"]: 0.0,
    }


def test_head_to_head_counts_a_shared_place_as_half_a_point(club: Club, olga: User) -> None:
    """Bob and Carol finished level behind Alice: between them, half a point each."""
    settled_game(club, olga, ["Alice", "Bob", "Carol"], [200_000, 100_000, 100_000])
    ids = {n: club.players[n].pk for n in ("Alice", "Bob", "Carol")}
    detail = selectors._Detail(selectors.results_at(club.competition, None))

    assert detail.head_to_head([ids["Bob"], ids["Carol"]]) == {ids["Bob"]: 0.5, ids["Carol"]: 0.5}
    assert detail.head_to_head(list(ids.values())) == {
        ids["Alice"]: 2.0,
        ids["Bob"]: 0.5,
        ids["Carol"]: 0.5,
    }


def test_a_head_to_head_cycle_leaves_the_tie_to_the_lot(club: Club, olga: User) -> None:
    """Alice beat Bob, Bob beat Carol, Carol beat Alice: one point each, 1.0 each."""
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])
    settled_game(club, olga, ["Bob", "Carol"], [200_000, 100_000])
    settled_game(club, olga, ["Carol", "Alice"], [200_000, 100_000])
    order_by(club, ["points", "head_to_head"])
    standing = selectors.standings(club.competition)
    top = standing[:3]
    assert all(r["decided_by"] == ["points", "lot"] for r in top)
    ids = [r["competitor"] for r in top]
    from tournaments import ranking

    assert ids == sorted(ids, key=lambda c: ranking.lot(club.competition.lot_seed, c))


def test_strength_of_schedule_is_the_opponents_average_placement(club: Club, olga: User) -> None:
    """Alice and Bob each won their only game; Alice beat Carol (who then beat Dora),
    Bob beat Dora (who lost every game): Alice's schedule was the stronger."""
    settled_game(club, olga, ["Alice", "Carol"], [200_000, 100_000])
    settled_game(club, olga, ["Bob", "Dora"], [200_000, 100_000])
    settled_game(club, olga, ["Carol", "Dora"], [200_000, 100_000])
    ids = {n: club.players[n].pk for n in ("Alice", "Bob", "Carol", "Dora")}
    detail = selectors._Detail(selectors.results_at(club.competition, None))
    assert detail.strength_of_schedule(list(ids.values())) == {
        ids["Alice"]: 0.5,  # Carol: 0 and 1, average 0.5
        ids["Bob"]: 0.0,  # Dora: 0 and 0
        ids["Carol"]: 0.5,  # Alice 1.0 and Dora 0.0
        ids["Dora"]: 0.75,  # Bob 1.0 and Carol 0.5
    }
    standing = selectors.standings(club.competition)  # the default order
    assert [r["name"] for r in standing] == ["Alice", "Bob", "Carol", "Dora"]
    # tied on points, placement, dsi, rounds won and head-to-head (they never met)
    assert standing[0]["decided_by"] == ["points", "placement", "sos"]
    eve = services.competitor_add(competition=club.competition, by=olga, name="Eve")
    assert detail.strength_of_schedule([eve.pk]) == {eve.pk: 0.0}  # nobody played: nothing


def test_a_configured_order_ranks_by_its_own_criteria(club: Club, olga: User) -> None:
    """Carol won twice with small shares; Bob won once with a big one."""
    settled_game(club, olga, ["Carol", "Alice"], [110_000, 100_000])
    settled_game(club, olga, ["Carol", "Dora"], [110_000, 100_000])
    settled_game(club, olga, ["Bob", "Dora"], [600_000, 10_000])
    assert [n for n, _ in table(club)] == ["Carol", "Bob", "Alice", "Dora"]  # 2, 1, 0, 0
    order_by(club, ["dsi", "points"])
    # DSI: Bob 1.97, Carol 1.05, Alice 0.95, Dora (0.95 + 0.03) / 2
    assert [n for n, _ in table(club)] == ["Bob", "Carol", "Alice", "Dora"]
    assert selectors.standings(club.competition)[0]["decided_by"] == ["dsi"]


def test_an_unknown_or_repeated_tie_break_is_refused(olga: User) -> None:
    for order, unknown in ((["points", "luck"], ["luck"]), (["dsi", "dsi"], [])):
        with pytest.raises(DomainError) as error:
            services.competition_create(kind="season", name="X", tiebreaks=order, best_of=None)
        assert error.value.code == "invalid_tiebreaks"
        assert error.value.details == {"unknown": unknown}


def test_a_season_keeps_its_configured_tie_breaks_and_best_of(club: Club, olga: User) -> None:
    season = services.season_create(
        league=club.season.league,
        by=olga,
        name="Summer",
        starts_on=dt.date(2026, 6, 1),
        best_of=3,
        tiebreaks=["wins", "points"],
    )
    assert season.competition.tiebreaks == ["wins", "points"]
    assert season.competition.best_of == 3


def test_a_season_with_a_bad_tie_break_order_is_refused_through_the_api(
    club: Club, olga: User, api_as: Callable[[User], APIClient]
) -> None:
    url = f"/api/v1/leagues/{club.season.league_id}/seasons/"
    bad = {"name": "Summer", "starts_on": "2026-06-01", "tiebreaks": ["points", "luck"]}
    response = api_as(olga).post(url, bad, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "tiebreaks" in response.json()["details"]
    twice = {**bad, "tiebreaks": ["points", "points"]}
    response = api_as(olga).post(url, twice, format="json")
    assert (response.status_code, response.json()["code"]) == (422, "invalid_tiebreaks")
    assert club.season.league.seasons.count() == 1


# --- best of ------------------------------------------------------------------------------


def test_best_of_counts_only_each_competitors_best_nights(club: Club, olga: User) -> None:
    nights = [club.night] + [
        services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, d)) for d in (10, 17)
    ]
    # Alice: won, lost, won; Bob: lost, won, lost
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000], night=nights[0])
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 200_000], night=nights[1])
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000], night=nights[2])
    everything = rows(club)
    assert (everything["Alice"]["games"], everything["Alice"]["points"]) == (3, 2.0)
    best_of(club, 2)
    best_two = rows(club)
    assert (best_two["Alice"]["games"], best_two["Alice"]["points"]) == (2, 2.0)
    assert best_two["Alice"]["placement"] == 1.0  # the losing night no longer counts
    assert (best_two["Bob"]["games"], best_two["Bob"]["points"]) == (2, 1.0)
    best_of(club, 1)
    best_one = rows(club)
    assert (best_one["Alice"]["games"], best_one["Bob"]["games"]) == (1, 1)
    assert best_one["Bob"]["points"] == 1.0
    assert best_one["Bob"]["dollars"] == 200_000  # night 2, his only win


def test_best_of_adds_up_a_nights_games_before_choosing(club: Club, olga: User) -> None:
    second = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])  # night 1: 1 point
    settled_game(club, olga, ["Alice", "Bob"], [50_000, 100_000], night=second)  # night 2: 0...
    settled_game(club, olga, ["Alice", "Carol"], [200_000, 100_000], night=second)  # ...+ 1
    settled_game(club, olga, ["Alice", "Carol"], [200_000, 100_000], night=second)  # ...+ 1
    best_of(club, 1)
    alice = rows(club)["Alice"]
    assert (alice["games"], alice["points"]) == (3, 2.0)  # night 2's three games


def test_best_of_ties_between_nights_keep_the_earlier_night(club: Club, olga: User) -> None:
    second = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])
    settled_game(club, olga, ["Alice", "Bob"], [300_000, 100_000], night=second)
    best_of(club, 1)
    assert rows(club)["Alice"]["dollars"] == 200_000
    assert GameNight.objects.get(pk=club.night.pk).date < second.date


def test_best_of_ties_keep_the_night_played_first_even_when_it_was_entered_later(
    club: Club, olga: User
) -> None:
    """An organiser enters a forgotten night after a later one: the tie goes by the date."""
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 24))
    forgotten = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    assert later.pk < forgotten.pk
    settled_game(club, olga, ["Alice", "Bob"], [300_000, 100_000], night=later)
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000], night=forgotten)
    best_of(club, 1)
    assert rows(club)["Alice"]["dollars"] == 200_000


def test_best_of_counts_a_seasons_games_at_no_night_as_a_night_of_their_own(
    club: Club, olga: User
) -> None:
    """A season's games played at no night (digital ones) are one more night for best of,
    the first of all in a tie."""
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])
    at_no_night(club, olga, ["Alice", "Bob"], [300_000, 50_000])
    best_of(club, 1)

    best_one = rows(club)

    assert (best_one["Alice"]["games"], best_one["Alice"]["dollars"]) == (1, 300_000)
    assert (best_one["Bob"]["games"], best_one["Bob"]["dollars"]) == (1, 50_000)


def test_best_of_leaves_out_the_games_at_no_night_when_a_night_beat_them(
    club: Club, olga: User
) -> None:
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])  # Alice's best night
    at_no_night(club, olga, ["Alice", "Bob"], [50_000, 300_000])
    best_of(club, 1)

    best_one = rows(club)

    assert (best_one["Alice"]["games"], best_one["Alice"]["dollars"]) == (1, 200_000)
    assert (best_one["Bob"]["games"], best_one["Bob"]["dollars"]) == (1, 300_000)


def test_a_competitors_games_after_a_night_are_those_played_up_to_it(
    club: Club, olga: User
) -> None:
    second = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])  # on 3 March
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 200_000], night=second)
    alice = club.players["Alice"]

    def nights_of(after: dt.date | None) -> list[int]:
        games = selectors.competitor_games(club.competition, alice, after_night=after)
        return [g.night.date.day for g in games if g.night is not None]

    assert nights_of(None) == [3, 10]
    assert nights_of(dt.date(2026, 3, 3)) == [3]
    assert nights_of(dt.date(2026, 3, 2)) == []


# --- as of a past moment --------------------------------------------------------------------


def test_standings_as_of_a_past_moment_show_what_was_true_then(club: Club, olga: User) -> None:
    t1 = dt.datetime(2030, 3, 3, 20, 0, tzinfo=dt.UTC)
    t2 = t1 + dt.timedelta(hours=1)
    t3 = t1 + dt.timedelta(days=2)
    with time_machine.travel(t1, tick=False):
        first = settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])
    with time_machine.travel(t2, tick=False):
        settled_game(club, olga, ["Carol", "Dora"], [200_000, 100_000])
    with time_machine.travel(t3, tick=False):
        recording.round_correct(
            game=first, round_number=1, by=olga, dollars=[100_000, 200_000], reason="swapped"
        )
    before_anything = table(club, as_of=t1 - dt.timedelta(seconds=1))
    assert all(points == 0.0 for _, points in before_anything)
    after_first = rows(club, as_of=t1)
    assert (after_first["Alice"]["wins"], after_first["Carol"]["games"]) == (1, 0)
    after_second = rows(club, as_of=t3 - dt.timedelta(seconds=1))
    assert (after_second["Alice"]["wins"], after_second["Carol"]["wins"]) == (1, 1)
    now = rows(club)
    assert (now["Alice"]["wins"], now["Bob"]["wins"], now["Carol"]["wins"]) == (0, 1, 1)
    assert rows(club, as_of=t3) == now
    # the ledger of results keeps all of it
    assert Result.objects.filter(competition=club.competition).count() == 6
    assert Result.objects.filter(competition=club.competition, valid_to=t3).count() == 2


def test_a_game_counts_from_the_moment_its_last_round_is_confirmed(
    club: Club, alice: User, bob: User
) -> None:
    from tests.tournaments.conftest import recorded_game

    t1 = dt.datetime(2030, 3, 3, 20, 0, tzinfo=dt.UTC)
    t2 = t1 + dt.timedelta(minutes=10)
    game = recorded_game(club, alice, ["Alice", "Bob"])
    with time_machine.travel(t1, tick=False):
        record = recording.round_record(game=game, by=alice, dollars=[200_000, 100_000]).record
    with time_machine.travel(t2, tick=False):
        recording.round_vote(record=record, by=bob, verdict="confirm")
    assert rows(club, as_of=t1)["Alice"]["games"] == 0
    assert rows(club, as_of=t2)["Alice"]["games"] == 1


# --- one competitor's games -------------------------------------------------------------


def test_a_league_is_run_by_its_creator_and_the_organisers_added(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    league = club.season.league
    league.organisers.add(alice)

    assert selectors.league_organiser_ids(league) == {olga.pk, alice.pk}
    assert selectors.is_organiser(club.competition, alice)
    assert not selectors.is_organiser(club.competition, bob)
    assert not selectors.is_league_organiser(league, AnonymousUser())


def test_a_club_tournament_is_run_by_its_organiser_and_the_leagues_organisers(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    league = club.season.league
    league.organisers.add(alice)
    options: dict[str, Any] = {
        "format": "round_robin", "entrants": "humans", "play": "recorded", "rules": QUICK,
        "rounds": 1, "table_sizes": [2], "preferred_size": 2,
    }  # fmt: skip

    club_cup = running.tournament_create(by=olga, name="Club Cup", league=league, **options)
    open_cup = running.tournament_create(by=bob, name="Open Cup", **options)

    assert selectors.organiser_ids(club_cup.competition) == {olga.pk, alice.pk}
    assert selectors.is_organiser(club_cup.competition, alice)
    assert selectors.organiser_ids(open_cup.competition) == {bob.pk}  # no league: its organiser
    assert not selectors.is_organiser(open_cup.competition, alice)
    assert not selectors.is_organiser(club_cup.competition, AnonymousUser())


def test_a_player_who_won_nothing_stands_at_zero_in_every_column(club: Club, olga: User) -> None:
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 0])

    bob = rows(club)["Bob"]

    assert bob["games"] == 1
    assert [bob[k] for k in ("points", "placement", "dsi", "rounds_won", "best_dsi")] == [0] * 5
    assert (bob["wins"], bob["dollars"]) == (0, 0)
    carol = rows(club)["Carol"]  # no game yet
    assert [carol[k] for k in ("games", "points", "placement", "dsi", "best_dsi")] == [0] * 5


def test_standings_give_their_averages_to_four_decimals(club: Club, olga: User) -> None:
    settled_game(club, olga, ["Alice", "Bob", "Carol", "Dora"], [400_000, 300_000, 0, 0])

    bob = rows(club)["Bob"]

    assert bob["points"] == bob["placement"] == 0.6667  # second of four: 2/3 of a win
    # $300k of $700k at four seats: 300 / 175
    assert bob["dsi"] == bob["best_dsi"] == 1.7143


def test_a_competitors_games_are_what_the_standings_total_and_say_which_count(
    club: Club, olga: User
) -> None:
    second = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    t1 = dt.datetime(2030, 3, 3, 20, 0, tzinfo=dt.UTC)
    with time_machine.travel(t1, tick=False):
        settled_game(club, olga, ["Bob", "Alice"], [200_000, 100_000], night=second)
    with time_machine.travel(t1 + dt.timedelta(days=1), tick=False):
        settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    best_of(club, 1)
    alice = club.players["Alice"]

    games = selectors.competitor_games(club.competition, alice)
    earlier = selectors.competitor_games(club.competition, alice, as_of=t1)

    # night by night: 3 March (a win at a table of three) before 10 March (a loss)
    assert [(g.night.date.day if g.night else None, g.place, g.table_size) for g in games] == [
        (3, 1, 3),
        (10, 2, 2),
    ]
    assert [(g.points, g.dollars, g.won, g.rounds_won) for g in games] == [
        (1.0, 300_000, True, 1),
        (0.0, 100_000, False, 0),
    ]
    assert games[0].dsi == pytest.approx(1.5)
    assert [g.counted for g in games] == [True, False]  # best of one: the winning night
    counted = [g for g in games if g.counted]
    assert sum(g.points for g in counted) == rows(club)["Alice"]["points"]
    assert [(g.night.date.day if g.night else None, g.counted) for g in earlier] == [(10, True)]


def test_a_competitors_games_say_the_draw_and_table_each_was_played_at(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 8)
    finish(nights.night_draw(night=club.night, by=olga, seed=1), olga)
    finish(nights.night_draw(night=club.night, by=olga, seed=2), olga)
    alice = club.players["Alice"]
    seated = GameEntry.objects.filter(competition=club.competition, competitor=alice)

    games = selectors.competitor_games(club.competition, alice)

    assert [(g.game, g.draw, g.table) for g in games] == sorted(
        (e.game_id, e.night_round.number if e.night_round else None, e.table) for e in seated
    )
    assert [g.draw for g in games] == [1, 2]


def test_a_competitors_games_follow_the_nights_dates_not_their_creation(
    club: Club, olga: User
) -> None:
    earlier = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 1))
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])  # on 3 March
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 200_000], night=earlier)
    at_no_night(club, olga, ["Alice", "Carol"], [50_000, 60_000])

    games = selectors.competitor_games(club.competition, club.players["Alice"])

    # a game played on no night comes first
    assert [(g.night.date.day if g.night else None, g.place) for g in games] == [
        (None, 2),
        (1, 2),
        (3, 1),
    ]


def test_a_competitors_games_on_two_nights_of_one_date_follow_the_nights(
    club: Club, olga: User
) -> None:
    afternoon = club.night
    evening = services.night_create(season=club.season, by=olga, on=afternoon.date)
    settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000], night=evening)  # typed first
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 200_000], night=afternoon)

    games = selectors.competitor_games(club.competition, club.players["Alice"])

    assert [(g.night, g.place) for g in games] == [(afternoon, 2), (evening, 1)]


def test_a_competitors_games_at_a_night_follow_its_draws_not_the_tables(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 8)
    finish(nights.night_draw(night=club.night, by=olga, seed=1), olga)
    finish(nights.night_draw(night=club.night, by=olga, seed=2), olga)
    table_at: dict[int, dict[int, int | None]] = {}
    for entry in GameEntry.objects.filter(competition=club.competition).select_related(
        "night_round"
    ):
        assert entry.night_round is not None
        table_at.setdefault(entry.competitor_id, {})[entry.night_round.number] = entry.table
    moved_up = [c for c, t in table_at.items() if (t[1] or 0) > (t[2] or 0)]
    assert moved_up  # these seeds seat someone at a lower table in the second draw
    competitor = Competitor.objects.get(pk=moved_up[0])

    games = selectors.competitor_games(club.competition, competitor)

    assert [(g.draw, g.table) for g in games] == [
        (1, table_at[competitor.pk][1]),
        (2, table_at[competitor.pk][2]),
    ]


def test_a_competitors_games_of_one_night_without_draws_follow_the_order_they_were_played(
    club: Club, olga: User
) -> None:
    played = [
        settled_game(club, olga, ["Alice", "Bob"], [200_000 + n * 10_000, 100_000])
        for n in range(4)
    ]
    # their results are written again, the last game's first: rows in the reverse order
    for n, game in reversed(list(enumerate(played))):
        recording.round_correct(
            game=game,
            round_number=1,
            by=olga,
            dollars=[250_000 + n * 5_000, 100_000],
            reason="miscounted",
        )

    games = selectors.competitor_games(club.competition, club.players["Alice"])
    # on the clock of record too, where the rows are read in the order they were written
    recorded = selectors.competitor_games(
        club.competition, club.players["Alice"], as_of=timezone.now()
    )

    expected = [(game.pk, 250_000 + n * 5_000) for n, game in enumerate(played)]
    assert [(g.game, g.dollars) for g in games] == expected
    assert [(g.game, g.dollars) for g in recorded] == expected


def test_a_competitions_change_log_lists_the_newest_change_first(club: Club, olga: User) -> None:
    later = dt.datetime(2030, 3, 3, 21, 0, tzinfo=dt.UTC)
    with time_machine.travel(later, tick=False):  # two changes at the same moment
        settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000])
    with time_machine.travel(dt.datetime(2020, 1, 7, tzinfo=dt.UTC), tick=False):
        settled_game(club, olga, ["Carol", "Dora"], [200_000, 100_000])  # written last, dated first
    before = list(ChangeLog.objects.filter(competition=club.competition).order_by("id"))

    log = list(selectors.change_log(club.competition))

    assert [(c.created_at, c.pk) for c in log] == sorted(
        ((c.created_at, c.pk) for c in before), reverse=True
    )
    assert log[0].created_at == log[1].created_at == later  # the later-written first
    assert log[0].pk > log[1].pk
    assert log[-1].created_at < later


def tied_level(club: Club, olga: User, level: int) -> None:
    """Two players tied on ``level`` points: each beats their own sparring partner
    ``level`` times (so head-to-head and strength of schedule are asked about them)."""
    for side in "ab":
        winner = services.competitor_add(
            competition=club.competition, by=olga, name=f"{side}{level}"
        )
        partner = services.competitor_add(
            competition=club.competition, by=olga, name=f"{side}{level} partner"
        )
        club.players[winner.name], club.players[partner.name] = winner, partner
        for _ in range(level):
            settled_game(club, olga, [winner.name, partner.name], [50_000, 10_000])


@pytest.mark.parametrize("tiebreaks", [["points", "head_to_head"], ["points", "sos"]])
def test_the_queries_of_the_standings_do_not_grow_with_the_number_of_tied_groups(
    club: Club, olga: User, tiebreaks: list[str], django_assert_num_queries: Any
) -> None:
    order_by(club, tiebreaks)
    for level in (1, 2):
        tied_level(club, olga, level)
    with CaptureQueriesContext(connection) as two_groups:
        selectors.standings(club.competition)
    for level in (3, 4, 5):
        tied_level(club, olga, level)

    with django_assert_num_queries(len(two_groups.captured_queries)):
        ranked = selectors.standings(club.competition)

    assert {r["name"] for r in ranked[:2]} == {"a5", "b5"}
    assert ranked[0]["decided_by"] == ["points", "lot"]  # they never met; equal schedules
