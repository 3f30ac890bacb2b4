"""Tournament pages: create one from a club's roster (or typed names), start it, see each
round's seating by name and its quality figures, advance its rounds to the standings.

Every refusal is shown beside its field with what was typed kept and nothing written;
only organisers create a club's tournament, start it and advance it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.pages import BUDGET, text, transfer_size
from tests.tournaments.conftest import QUICK, Club
from tournaments import recording, roster, running, selectors, tables
from tournaments.models import (
    ChangeLog,
    Competitor,
    Member,
    Tournament,
    TournamentRound,
)

pytestmark = pytest.mark.django_db
NEWCOMERS = ("Erin", "Finn", "Gus", "Hana")
# One quick round decides a table of four: valid amounts of the 2021 deck (RULES.md 1.4).
ROUND = [300_000, 150_000, 50_000, 0]


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(**fields: Any) -> dict[str, Any]:
    """The creation form as a person fills it: a two-round robin at tables of four."""
    return {
        "name": "Spring Cup",
        "format": "round_robin",
        "play": "recorded",
        "rounds": "2",
        "table_sizes": ["4"],
        "preferred_size": "4",
        "preset": "2021",
        "ending": "quick",
        "target": "1000000",
        "tie_policy": "extra_round",
        **fields,
    }


@pytest.fixture
def eight(club: Club, olga: User) -> list[Member]:
    """The Tuesday Club's roster of eight: alice, bob, carol, guest Dora and four guests."""
    league = club.season.league
    for name in NEWCOMERS:
        roster.member_add(league=league, by=olga, name=name)
    return list(league.members.order_by("name"))


def cup(
    olga: User, members: list[Member], *, rounds: int = 2, fmt: str = "round_robin"
) -> Tournament:
    """olga's recorded club tournament of these members, at tables of four."""
    return running.tournament_create(
        by=olga, name="Spring Cup", format=fmt, entrants="humans", play="recorded",
        rules=QUICK, rounds=rounds, table_sizes=[4], preferred_size=4, seed=3,
        league=members[0].league, members=members,
    )  # fmt: skip


def play_round(tournament: Tournament, number: int, by: User) -> None:
    """Every table of the round records its one quick round, entered by the organiser."""
    round_ = TournamentRound.objects.get(tournament=tournament, number=number)
    for table in tables.tournament_rounds([round_])[round_.pk]:
        game = Game.objects.get(pk=table.game)
        recording.round_record(game=game, by=by, dollars=ROUND[: len(table.players)])


def test_an_organiser_creates_a_round_robin_from_the_roster(
    eight: list[Member], olga: User
) -> None:
    client = as_user(olga)
    page = client.get("/tournaments/new/?league=tuesday")
    chosen = [m for m in eight if m.name != "Hana"]
    response = client.post(
        "/tournaments/new/?league=tuesday",
        form(members=[str(m.pk) for m in chosen], names="Ivo\n", rounds="3",
             table_sizes=["3", "4", "5"]),
    )  # fmt: skip

    assert page.status_code == 200
    assert "Players from the roster Alice Bob Carol Dora (guest) Erin (guest)" in text(page.content)
    assert re.search(r'value="quick"[^>]*selected', page.content.decode())  # the club's rules
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{tournament.pk}/"
    assert tournament.league == eight[0].league
    assert tournament.play == Tournament.Play.RECORDED
    assert (tournament.format, tournament.rounds) == ("round_robin", 3)
    entrants = tournament.competition.competitors.all()
    assert sorted(c.name for c in entrants) == sorted([*(m.name for m in chosen), "Ivo"])
    assert all(c.member is not None for c in entrants)  # the newcomer joined the roster
    assert Member.objects.filter(name="Ivo", league=tournament.league).exists()


def test_everyone_on_the_roster_enters_without_ticking_anyone(
    eight: list[Member], olga: User
) -> None:
    response = as_user(olga).post("/tournaments/new/?league=tuesday", form(everyone="on"))

    assert response.status_code == 302
    assert Competitor.objects.filter(competition__tournament__isnull=False).count() == 8


def test_anyone_signed_in_creates_a_tournament_of_typed_names_and_usernames(
    client: Client, alice: User, bob: User, carol: User
) -> None:
    response = as_user(alice).post(
        "/tournaments/new/", form(names="Dora\n  Erin \n\n", users="bob, CAROL")
    )

    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert tournament.league is None
    assert tournament.organiser == alice
    names = {c.name: c.user for c in tournament.competition.competitors.all()}
    assert names == {"Dora": None, "Erin": None, "bob": bob, "carol": carol}
    assert client.get("/tournaments/new/").status_code == 302  # signed out: sign in first


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"names": "Ann\nBen\nCid\nDee\nEve"}, "table_sizes",
         "5 entrants cannot be seated at tables of 4."),
        ({"names": "Ann\nBen\nann\nDee"}, "names", "Someone in this competition is called “ann”."),
        ({"names": "Ann\nBen\nCid", "users": "ghost"}, "users",
         "Nobody here has the username “ghost”."),
        ({"names": "Ann\nBen\nCid\nDee", "table_sizes": ["3", "5"]}, "preferred_size",
         "The preferred size must be one of the table sizes allowed."),
        ({"names": "Ann\nBen\nCid\nDee", "play": "digital"}, "names",
         "Ann has no account: online play needs one for every entrant."),
        ({"names": ""}, "names", "Choose the players: a tournament needs entrants."),
    ],
)  # fmt: skip
def test_a_refusal_is_said_beside_its_field_with_everything_kept_and_nothing_written(
    alice: User, fields: dict[str, Any], field: str, says: str
) -> None:
    response = as_user(alice).post("/tournaments/new/", form(name="Autumn Open", **fields))

    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(rf'<p class="error" id="id_{field}_error">([^<]*)</p>', html)
    assert error is not None, html
    assert says in text(error.group(1))
    assert 'value="Autumn Open"' in html
    assert fields["names"] in html  # the textarea keeps what was typed
    assert not Tournament.objects.exists()
    assert not Competitor.objects.exists()
    assert not ChangeLog.objects.filter(action="tournament_created").exists()


def test_a_club_refusal_keeps_the_ticks_and_adds_nobody_to_the_roster(
    eight: list[Member], olga: User
) -> None:
    ticked = [str(m.pk) for m in eight[:5]]
    response = as_user(olga).post(
        "/tournaments/new/?league=tuesday", form(members=ticked, names="Ivo\nJo")
    )

    assert response.status_code == 400
    assert "7 entrants cannot be seated at tables of 4." in text(response.content)
    html = response.content.decode()
    assert all(re.search(rf'value="{pk}"[^>]*checked', html) for pk in ticked)
    assert not Tournament.objects.exists()
    assert not Member.objects.filter(name__in=["Ivo", "Jo"]).exists()


def test_only_the_clubs_organisers_create_its_tournaments(eight: list[Member], alice: User) -> None:
    player = as_user(alice)
    page = player.get("/tournaments/new/?league=tuesday")
    posted = player.post("/tournaments/new/?league=tuesday", form(everyone="on"))

    assert page.status_code == posted.status_code == 403
    assert "Only an organiser of Tuesday Club may do that." in text(page.content)
    assert not Tournament.objects.exists()


def test_only_organisers_start_and_advance(
    client: Client, eight: list[Member], olga: User, alice: User
) -> None:
    tournament = cup(olga, eight)
    signed_out = client.post(f"/tournaments/{tournament.pk}/start/")
    player = as_user(alice)
    refused = player.post(f"/tournaments/{tournament.pk}/start/")
    page = player.get(f"/tournaments/{tournament.pk}/")
    running.tournament_start(tournament=tournament, by=olga)
    play_round(tournament, 1, olga)
    not_advanced = player.post(f"/tournaments/{tournament.pk}/rounds/1/advance/")

    assert signed_out.status_code == 302
    assert signed_out["Location"].startswith("/sign-in/")
    assert refused.status_code == not_advanced.status_code == 403
    assert "Only an organiser may do that." in text(refused.content)
    assert "Start:" not in text(page.content)
    assert "Close round" not in text(player.get(f"/tournaments/{tournament.pk}/").content)
    visitor = client.get(f"/tournaments/{tournament.pk}/")
    assert visitor.status_code == 200
    assert 'method="post" action="/tournaments/' not in visitor.content.decode()  # reads only
    assert TournamentRound.objects.get(tournament=tournament, number=1).status == "playing"


def test_the_page_shows_every_planned_round_by_name_and_the_seating_quality(
    eight: list[Member], olga: User
) -> None:
    tournament = cup(olga, eight, rounds=3)
    client = as_user(olga)
    started = client.post(f"/tournaments/{tournament.pk}/start/")
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    page = text(html)

    assert started["Location"] == f"/tournaments/{tournament.pk}/#round-1"
    rounds = list(TournamentRound.objects.filter(tournament=tournament).order_by("number"))
    names = {c.number: c.name for c in tournament.competition.competitors.all()}
    for r in rounds:  # every round's tables, by name in seat order, planned ones too
        section = html.split(f'id="round-{r.number}"')[1].split("</section>")[0]
        for n, table in enumerate(r.plan, start=1):
            seated = " ".join(names[i] for i in table)
            assert f"Table {n} {seated}" in text(section), (r.number, seated)
    opened = tables.tournament_rounds(rounds)[rounds[0].pk]
    assert all(f'href="/sheets/{t.game}/"' in html for t in opened)
    assert html.count('href="/sheets/') == 2  # planned rounds have no sheets yet
    assert page.count("not started yet") == 4
    quality = (ChangeLog.objects.get(action="tournament_started").after or {})["quality"]
    assert f"Most meetings of any pair: {quality['max_meetings']}" in page
    assert f"Pairs meeting more than once: {quality['repeated_pairs']}" in page
    assert f"Repeats in consecutive rounds: {quality['consecutive_repeats']}" in page
    assert f"Seat spread: {quality['seat_spread']}" in page
    assert "The most rounds any two players share a table." in page
    assert rounds[-1].quality == quality  # each round keeps the figures so far
    assert "Close round 1 and open round 2" in page


def test_advancing_a_round_whose_tables_have_not_finished_names_them(
    eight: list[Member], olga: User
) -> None:
    tournament = cup(olga, eight)
    running.tournament_start(tournament=tournament, by=olga)
    first = TournamentRound.objects.get(tournament=tournament, number=1)
    done, playing = tables.tournament_rounds([first])[first.pk]
    recording.round_record(game=Game.objects.get(pk=done.game), by=olga, dollars=ROUND)
    response = as_user(olga).post(f"/tournaments/{tournament.pk}/rounds/1/advance/")

    assert response.status_code == 409
    refusal = re.search(r'<p class="notice bad" role="alert" id="refusal">([^<]*)</p>',
                        response.content.decode())  # fmt: skip
    assert refusal is not None
    assert text(refusal.group(1)) == (
        f"Round 1 cannot advance yet: table {playing.number + 1} is still playing."
    )
    first.refresh_from_db()
    assert first.status == "playing"


def test_a_player_entry_waiting_for_confirmations_is_named_too(
    eight: list[Member], olga: User
) -> None:
    tournament = cup(olga, eight)
    running.tournament_start(tournament=tournament, by=olga)
    first = TournamentRound.objects.get(tournament=tournament, number=1)
    for table in tables.tournament_rounds([first])[first.pk]:
        accounts = [p.user_id for p in table.players if p.user_id is not None]
        game = Game.objects.get(pk=table.game)
        # A player entering leaves the round waiting for the other accounts at the table.
        by = User.objects.get(pk=accounts[0]) if len(accounts) > 1 else olga
        recording.round_record(game=game, by=by, dollars=ROUND)
    response = as_user(olga).post(f"/tournaments/{tournament.pk}/rounds/1/advance/")

    assert response.status_code == 409
    assert "has ended but waits for confirmations" in text(response.content)


def test_the_pages_stay_cheap_and_small(
    eight: list[Member], olga: User, django_assert_max_num_queries: Any
) -> None:
    league = eight[0].league
    for name in ("Ivo", "Jo", "Kai", "Lu"):
        roster.member_add(league=league, by=olga, name=name)
    tournament = cup(olga, list(league.members.all()), rounds=6)
    client = as_user(olga)
    page = f"/tournaments/{tournament.pk}/"
    for url in ("/tournaments/", "/tournaments/new/?league=tuesday", page):
        with django_assert_max_num_queries(12):
            assert client.get(url).status_code == 200, url
    running.tournament_start(tournament=tournament, by=olga)  # six rounds of three tables
    with django_assert_max_num_queries(16):
        assert client.get(page).status_code == 200
    play_round(tournament, 1, olga)
    # Now players are tied in groups, and the standings read each group's tie-breaks (a
    # few queries per group: selectors.standings); the page's own reads stay fixed.
    with CaptureQueriesContext(connection) as standings:
        selectors.standings(tournament.competition)
    with CaptureQueriesContext(connection) as whole:
        assert client.get(page).status_code == 200
    assert len(whole) - len(standings) <= 12
    for url in (page, "/tournaments/", "/leagues/tuesday/", "/tournaments/new/?league=tuesday"):
        assert transfer_size(client, url) < BUDGET, url


def test_a_whole_small_tournament_runs_on_pages(
    client: Client, eight: list[Member], olga: User
) -> None:
    organiser = as_user(olga)
    created = organiser.post("/tournaments/new/?league=tuesday", form(everyone="on"))
    tournament = Tournament.objects.get()
    league_page = text(client.get("/leagues/tuesday/").content)
    organiser.post(f"/tournaments/{tournament.pk}/start/")
    play_round(tournament, 1, olga)
    to_two = organiser.post(f"/tournaments/{tournament.pk}/rounds/1/advance/")
    second = text(client.get(f"/tournaments/{tournament.pk}/").content)
    play_round(tournament, 2, olga)
    finished = organiser.post(f"/tournaments/{tournament.pk}/rounds/2/advance/")
    tournament.refresh_from_db()
    page = text(client.get(f"/tournaments/{tournament.pk}/").content)

    assert created.status_code == 302
    assert "Spring Cup" in league_page
    assert to_two["Location"] == f"/tournaments/{tournament.pk}/#round-2"
    assert "Round 2 playing now" in second
    assert finished["Location"] == f"/tournaments/{tournament.pk}/#standings"
    assert tournament.status == Tournament.Status.FINISHED
    assert "The tournament has finished" in page
    top = selectors.standings(tournament.competition)[0]
    standings = page.split("Standings # Player Points Games Dollars")[1].strip()
    assert standings.startswith(f"1 {top['name']} {top['points']:.2f} 2 ${top['dollars']:,}")
    assert "Close round" not in page


def test_a_digital_tournament_shows_names_and_status_without_links(
    client: Client, olga: User, alice: User, bob: User, carol: User
) -> None:
    dan = UserFactory.create(username="dan")
    tournament = running.tournament_create(
        by=olga, name="Online Cup", format="swiss", entrants="humans", rules=QUICK,
        rounds=2, table_sizes=[4], preferred_size=4, users=[alice, bob, carol, dan],
    )  # fmt: skip
    running.tournament_start(tournament=tournament, by=olga)
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()

    assert all(name in text(html) for name in ("alice", "bob", "carol", "dan"))
    assert "/sheets/" not in html
    assert "playing" in text(html)
    assert "Swiss: each round is seated from the standings" in text(html)


def test_the_lists_link_each_tournament_and_organisers_create_from_the_roster(
    client: Client, eight: list[Member], olga: User
) -> None:
    tournament = cup(olga, eight)
    visitor = client.get("/leagues/tuesday/").content.decode()
    listed = client.get("/tournaments/").content.decode()
    organiser = as_user(olga).get("/leagues/tuesday/").content.decode()

    assert f'href="/tournaments/{tournament.pk}/">Spring Cup</a>' in visitor
    assert f'href="/tournaments/{tournament.pk}/">Spring Cup</a>' in listed
    assert 'href="/tournaments/new/?league=tuesday"' in organiser
    assert "/tournaments/new/" not in visitor + listed  # visitors only read
    assert 'href="/tournaments/new/"' in as_user(olga).get("/tournaments/").content.decode()
