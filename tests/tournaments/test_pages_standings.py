"""Standings pages (tournaments.web.standings): a season, a night, a tournament and a
player's season, for anyone, signed in or not. They show names and dollars, say in words
how the order is decided, go back to the end of any day, download as CSV, chart the
tables and a player's nights, and stay cheap and small however many tables a night has.

Games use the quick ending (one round decides them) and are entered by the organiser,
so they count at once (tests/tournaments/conftest.py).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from html import unescape
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from accounts.models import User
from tests.pages import BUDGET, text, transfer_size
from tests.tournaments.conftest import QUICK, Club, settled_game
from tests.tournaments.test_nights import check_in, finish
from tournaments import nights, recording, running, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

DAY_ONE = dt.datetime(2030, 5, 1, 19, 0, tzinfo=dt.UTC)
LATER = dt.datetime(2030, 6, 1, 12, 0, tzinfo=dt.UTC)


def season_url(club: Club, query: str = "") -> str:
    return f"/seasons/{club.season.pk}/standings/{query}"


def night_url(club: Club, query: str = "") -> str:
    return f"/nights/{club.night.pk}/standings/{query}"


def player_url(club: Club, name: str, query: str = "") -> str:
    return f"/seasons/{club.season.pk}/players/{club.players[name].pk}/{query}"


def names_in_order(html: bytes) -> list[str]:
    """The standings table's names, top to bottom."""
    body = html.decode().split('<table class="standings">')[1].split("</table>")[0]
    return [text(cell) for cell in re.findall(r'<th scope="row">(.*?)</th>', body, re.S)]


def row_of(html: bytes, name: str) -> str:
    """The visible text of a player's row in the standings table (on a wide screen: the
    phone's "More" cell repeats the row's other columns)."""
    body = html.decode().split('<table class="standings">')[1]
    body = re.sub(r'<td class="tap">.*?</td>', "", body, flags=re.S)
    return next(text(r) for r in re.findall(r"<tr>(.*?)</tr>", body, re.S) if name in r)


@pytest.fixture
def pub_open(olga: User) -> Tournament:
    """A recorded tournament of four guests at one table; its one game is entered."""
    tournament = running.tournament_create(
        by=olga, name="Pub Open", format="round_robin", entrants="humans", rules=QUICK,
        rounds=1, table_sizes=[4], preferred_size=4, play="recorded", seed=1,
    )  # fmt: skip
    for name in ("Ann", "Ben", "Cat", "Dan"):
        running.entrant_add(tournament=tournament, by=olga, name=name)
    running.tournament_start(tournament=tournament, by=olga)
    game = tournament.competition.entries.get(seat=0).game
    recording.round_record(game=game, by=olga, dollars=[450_000, 300_000, 150_000, 50_000])
    return tournament


# --- what every standings page shows -------------------------------------------------------


def test_standings_pages_are_public_with_names_and_dollars_cheap_and_small(
    client: Client, club: Club, olga: User, pub_open: Tournament, django_assert_max_num_queries: Any
) -> None:
    settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    pages = {
        season_url(club): ("Alice", "$300,000"),
        night_url(club): ("Carol", "$100,000"),
        player_url(club, "Bob"): ("Bob", "$200,000"),
        f"/tournaments/{pub_open.pk}/standings/": ("Ann", "$450,000"),
    }
    for url, shown in pages.items():
        with django_assert_max_num_queries(14):
            response = client.get(url)
        assert response.status_code == 200, url
        assert all(words in text(response.content) for words in shown), url
        assert transfer_size(client, url) < BUDGET, url


def test_each_row_shows_every_measure_and_in_words_what_decided_it(
    client: Client, club: Club, olga: User
) -> None:
    # Alice and Bob win a game each, level on points and placement; Alice's $300,000 of
    # $400,000 outweighs Bob's $200,000 of $300,000 in dollar share (1.08 against 0.92).
    settled_game(club, olga, ["Alice", "Bob"], [300_000, 100_000])
    settled_game(club, olga, ["Bob", "Alice"], [200_000, 100_000])

    html = client.get(season_url(club)).content

    assert names_in_order(html)[:2] == ["Alice", "Bob"]
    # rank, name, games, points, average placement, DSI, rounds won, wins, dollars, decided by
    assert row_of(html, "Alice") == (
        "1 Alice 2 1.00 0.50 1.08 1 1 $400,000 placement points, dollar share"
    )
    assert row_of(html, "Bob").endswith("$300,000 placement points, dollar share")
    assert row_of(html, "Dora").endswith("$0 placement points, the lot")  # level with Carol


def test_the_tiebreaks_in_force_are_listed_in_order_and_explained_with_the_lot_seed(
    client: Client, club: Club
) -> None:
    club.competition.tiebreaks = ["dsi", "wins", "points"]
    club.competition.save(update_fields=["tiebreaks"])

    html = client.get(season_url(club)).content.decode()
    listed = html.split('<ol class="tiebreaks">')[1].split("</ol>")[0]
    items = [unescape(text(li)) for li in re.findall(r"<li>(.*?)</li>", listed, re.S)]

    assert [item.split(":")[0].strip() for item in items] == [
        "Dollar share",
        "Games won",
        "Placement points",
        "The lot",
    ]
    assert "a game's dollars divided by the table's average" in items[0]
    assert club.competition.lot_seed in items[-1]


def test_a_season_that_counts_only_the_best_nights_says_so(
    client: Client, club: Club, olga: User
) -> None:
    club.competition.best_of = 3
    club.competition.save(update_fields=["best_of"])

    season = text(client.get(season_url(club)).content)
    night = text(client.get(night_url(club)).content)

    assert "Each player's best 3 nights count." in season
    assert "Only each player's best 3 nights count" in season
    assert "best 3 nights" not in night  # one night's standings count every game of it


# --- as of the end of a day --------------------------------------------------------------


def corrected_game(club: Club, olga: User) -> None:
    """Alice beats Bob on day one; the next day the organiser corrects it to Bob."""
    with time_machine.travel(DAY_ONE, tick=False):
        game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    with time_machine.travel(DAY_ONE + dt.timedelta(days=1), tick=False):
        recording.round_correct(
            game=game, by=olga, round_number=1, dollars=[50_000, 100_000], reason="swapped"
        )


def test_as_of_a_day_shows_the_standings_as_they_stood_at_its_end(
    client: Client, club: Club, olga: User
) -> None:
    corrected_game(club, olga)

    with time_machine.travel(LATER, tick=False):
        now = client.get(season_url(club))
        then = client.get(season_url(club, "?as_of=2030-05-01"))
        before = client.get(season_url(club, "?as_of=2030-04-30"))

    assert names_in_order(now.content)[0] == "Bob"
    assert names_in_order(then.content)[0] == "Alice"
    heading = text(then.content)
    assert "as recorded at the end of 1 May 2030" in heading or "end of May 1, 2030" in heading
    assert "Alice: rank 1 with 1.00 points then, rank 2 with 0.00 points now." in text(then.content)
    assert 'value="2030-05-01"' in then.content.decode()
    assert f'href="/seasons/{club.season.pk}/standings/">Back to now' in then.content.decode()
    assert "Back to now" not in text(now.content)
    assert "Alice 0 0.00 0.00 0.00 0 0 $0" in row_of(before.content, "Alice")  # nothing yet


def test_the_day_ends_in_the_sites_time_zone(
    client: Client, club: Club, olga: User, settings: Settings
) -> None:
    settings.TIME_ZONE = "America/New_York"
    # 02:00 UTC on 2 May is still 1 May, 22:00, in New York
    with time_machine.travel(dt.datetime(2030, 5, 2, 2, 0, tzinfo=dt.UTC), tick=False):
        settled_game(club, olga, ["Bob", "Alice"], [100_000, 50_000])

    with time_machine.travel(LATER, tick=False):
        first = client.get(season_url(club, "?as_of=2030-05-01"))

    assert names_in_order(first.content)[0] == "Bob"
    assert row_of(first.content, "Bob").startswith("1 Bob 1 1.00")


def test_a_bad_date_is_said_beside_the_field_with_what_was_typed_kept(
    client: Client, club: Club, olga: User
) -> None:
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])

    response = client.get(season_url(club, "?as_of=last+tuesday"))
    html = response.content.decode()

    assert response.status_code == 400
    assert 'id="id_as_of_error"' in html
    assert "“last tuesday” is not a date" in unescape(text(html))
    assert 'value="last tuesday"' in html
    assert 'aria-invalid="true"' in html
    assert names_in_order(response.content)[0] == "Alice"  # the standings now, still shown


def test_a_day_not_over_yet_shows_the_standings_now(client: Client, club: Club, olga: User) -> None:
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])

    response = client.get(season_url(club, "?as_of=2999-12-31"))

    assert response.status_code == 200
    assert names_in_order(response.content)[:2] == ["Alice", "Bob"]
    assert "as_of" not in re.search(r'href="(/api/[^"]+)"', response.content.decode())[1]  # type: ignore[index]


# --- the CSV download --------------------------------------------------------------------


def test_the_csv_link_downloads_the_standings_shown_as_a_named_file(
    client: Client, club: Club, olga: User
) -> None:
    corrected_game(club, olga)
    with time_machine.travel(LATER, tick=False):
        page = client.get(season_url(club, "?as_of=2030-05-01")).content.decode()
        link = re.search(r'<a class="button secondary" href="([^"]+)" download="([^"]+)">', page)
        assert link is not None
        download = client.get(link[1].replace("&amp;", "&"))

    assert download.status_code == 200
    assert download["Content-Type"].startswith("text/csv")
    expected = "tuesday-club-spring-standings-as-of-2030-05-01.csv"
    assert link[2] == expected
    assert download["Content-Disposition"] == f'attachment; filename="{expected}"'
    table = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [(r["rank"], r["name"]) for r in table[:2]] == [("1", "Alice"), ("2", "Bob")]


# --- a night -----------------------------------------------------------------------------


def test_a_night_ranks_only_its_own_games(client: Client, club: Club, olga: User) -> None:
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    settled_game(club, olga, ["Carol", "Alice"], [300_000, 50_000], night=later)

    first = client.get(night_url(club)).content
    second = client.get(f"/nights/{later.pk}/standings/").content

    assert names_in_order(first) == ["Alice", "Bob"]  # Carol and Dora did not come
    assert row_of(first, "Alice").startswith("1 Alice 1 1.00")
    assert names_in_order(second) == ["Carol", "Alice"]
    assert "$300,000" not in text(first)


def test_a_night_charts_every_table_in_the_same_few_queries(
    client: Client, club: Club, olga: User
) -> None:
    # Head-to-head and strength of schedule cost the standings selector (the API's) a few
    # queries per group still tied, however many tables; without them, what is left is
    # the page's own reads, which must not grow with the tables either.
    club.competition.tiebreaks = ["points", "placement", "dsi", "rounds_won", "best_dsi"]
    club.competition.save(update_fields=["tiebreaks"])
    check_in(club, olga, 12)
    finish(nights.night_draw(night=club.night, by=olga, seed=5), olga)
    with CaptureQueriesContext(connection) as three_tables:
        response = client.get(night_url(club))
    finish(nights.night_draw(night=club.night, by=olga, seed=6), olga)
    with CaptureQueriesContext(connection) as six_tables:
        client.get(night_url(club))
    html = response.content.decode()

    # 12: the substitutes and the penalties listed below the table are a query each
    assert len(three_tables) == len(six_tables) <= 12
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 3
    assert [text(h) for h in re.findall(r"<h3 [^>]*>(.*?)</h3>", html)] == [
        "Round 1, table 1",
        "Round 1, table 2",
        "Round 1, table 3",
    ]
    assert "Running tallies, round by round" in html
    assert re.search(r"After 1 round: [\w ]+ \$300,000, ", html)
    assert len(names_in_order(response.content)) == 12
    assert transfer_size(client, night_url(club)) < BUDGET


def test_a_first_to_the_target_table_draws_the_target(
    client: Client, club: Club, olga: User
) -> None:
    classic = QUICK.with_options(ending="classic")
    game = settled_game(club, olga, ["Alice", "Bob"], [600_000, 200_000], rules=classic)
    recording.round_record(game=game, by=olga, dollars=[500_000, 100_000])

    html = client.get(night_url(club)).content.decode()

    assert 'class="target"' in html
    assert "Target $1,000,000" in html
    assert "After 2 rounds: Alice $1,100,000, Bob $300,000." in html


# --- a player's season -------------------------------------------------------------------


def test_a_players_page_lists_their_games_and_charts_their_nights(
    client: Client, club: Club, olga: User
) -> None:
    settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    settled_game(club, olga, ["Bob", "Alice"], [150_000, 50_000])

    page = text(client.get(player_url(club, "Alice")).content)

    assert "Rank 2 of 4 · 2 games · 1.00 points · $350,000" in page
    assert "1 of 3 won 1.00 $300,000 1.50" in page
    assert "2 of 2 0.00 $50,000 0.50" in page
    assert "Points night by night" in page
    assert "Running total of the points that count" in page


def test_a_night_outside_the_best_n_is_marked_and_drawn_hollow(
    client: Client, club: Club, olga: User
) -> None:
    club.competition.best_of = 1
    club.competition.save(update_fields=["best_of"])
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [50_000, 100_000])
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000], night=later)

    html = client.get(player_url(club, "Alice")).content.decode()

    assert "no: not among the best nights" in text(html)
    assert 'class="bar uncounted"' in html
    assert "Points that night, not counted" in text(html)


def test_a_player_of_another_season_is_not_found(
    client: Client, club: Club, pub_open: Tournament
) -> None:
    stranger = pub_open.competition.competitors.first()
    assert stranger is not None

    assert client.get(f"/seasons/{club.season.pk}/players/{stranger.pk}/").status_code == 404
    assert client.get("/seasons/999999/standings/").status_code == 404


def test_the_season_page_leads_to_the_full_standings_and_names_to_players(
    client: Client, club: Club, olga: User
) -> None:
    settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])

    season = client.get(f"/seasons/{club.season.pk}/").content.decode()
    standings = client.get(season_url(club)).content.decode()

    assert f'href="/seasons/{club.season.pk}/standings/">Full standings, charts and CSV' in season
    assert f'<a href="{player_url(club, "Alice")}">Alice</a>' in season
    assert f'<a href="{player_url(club, "Alice")}">Alice</a>' in standings
