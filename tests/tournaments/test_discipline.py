"""Substitutes and penalties (issue 27, item 4): a substitute takes a seat for a player who
left, the absent player's game scored by the league's policy; penalties in points or
dollars come off the standings, with a reason everyone reads, on both clocks. Services,
the API and its CSV, the desk's page actions; docs/tournaments.md, "Substitutes and
penalties"."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from games.engine import RuleSet
from games.models import Game
from tests.pages import text
from tests.tournaments.conftest import Club, recorded_game
from tournaments import discipline, recording, running, selectors, services
from tournaments.models import (
    ChangeLog,
    Competition,
    Member,
    Penalty,
    ScoreRecord,
    Substitution,
    Tournament,
)

pytestmark = pytest.mark.django_db

MINUS = "\u2212"  # as the pages write a penalty
LONG = RuleSet.preset("2021")  # a round does not end the game
ROUND = [300_000, 200_000, 100_000]  # Alice's seat wins the quick game


def standing(club: Club, name: str, **clock: object) -> dict[str, object]:
    rows = selectors.standings(club.competition, **clock)  # type: ignore[arg-type]
    return next(r for r in rows if r["name"] == name)


def test_fixed_policy_scores_the_absent_player_last_and_the_substitute_for_nobody(
    club: Club, olga: User
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    sub = discipline.substitute_seat(game=game, by=olga, seat=0, name="Zed", reason="went home")
    recording.round_record(game=game, by=olga, dollars=ROUND)

    assert (sub.policy, sub.from_round, sub.absent.name) == ("fixed", 1, "Alice")
    alice = standing(club, "Alice")
    # the seat won the game, but Alice left: last place, no points, no dollars
    assert (alice["games"], alice["points"], alice["dollars"], alice["wins"]) == (1, 0.0, 0, 0)
    # the others keep the places they played
    assert standing(club, "Bob")["points"] == 0.5
    assert standing(club, "Carol")["points"] == 0.0
    assert "Zed" not in {r["name"] for r in selectors.standings(club.competition)}
    log = ChangeLog.objects.get(action="substitute_seated")
    assert (log.reason, log.before) == ("went home", {"player": "Alice"})
    assert log.after == {"substitute": "Zed", "from_round": 1, "policy": "fixed"}


def test_seat_policy_credits_the_absent_player_with_the_seats_result(
    club: Club, olga: User
) -> None:
    services.league_settings_change(league=club.season.league, by=olga, substitute_policy="seat")
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    discipline.substitute_seat(game=game, by=olga, seat=0, name="Zed", reason="went home")
    recording.round_record(game=game, by=olga, dollars=ROUND)

    alice = standing(club, "Alice")
    assert (alice["points"], alice["dollars"], alice["wins"]) == (1.0, 300_000, 1)


def test_a_substitution_keeps_the_policy_it_was_recorded_under(club: Club, olga: User) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    discipline.substitute_seat(game=game, by=olga, seat=0, name="Zed", reason="went home")
    services.league_settings_change(league=club.season.league, by=olga, substitute_policy="seat")
    recording.round_record(game=game, by=olga, dollars=ROUND)

    assert standing(club, "Alice")["points"] == 0.0


def test_the_absent_players_confirmation_is_no_longer_waited_for(
    club: Club, olga: User, alice: User, carol: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=LONG)
    recording.round_record(game=game, by=alice, dollars=[100_000, 50_000])  # bob has not voted
    assert ScoreRecord.objects.get(game=game).status == ScoreRecord.Status.PENDING

    carol_member = Member.objects.get(name="Carol")
    discipline.substitute_seat(game=game, by=olga, seat=1, member=carol_member, reason="ill")
    # the round waits for whoever sits at the table now: carol, not bob
    assert ScoreRecord.objects.get(game=game).status == ScoreRecord.Status.PENDING
    recording.round_vote(record=ScoreRecord.objects.get(game=game), by=carol, verdict="confirm")
    assert ScoreRecord.objects.get(game=game).status == ScoreRecord.Status.CONFIRMED
    # and carol, the substitute, enters the seat's rounds
    entry = recording.round_record(game=game, by=carol, dollars=[50_000, 100_000])
    assert entry.record.round_number == 2


def test_a_guest_substitute_leaves_the_round_to_the_accounts_still_seated(
    club: Club, olga: User, alice: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=LONG)
    recording.round_record(game=game, by=alice, dollars=[100_000, 50_000])

    discipline.substitute_seat(game=game, by=olga, seat=1, name="Zed", reason="left")

    assert ScoreRecord.objects.get(game=game).status == ScoreRecord.Status.CONFIRMED


@pytest.mark.parametrize(
    ("seat", "name", "reason", "code"),
    [
        (3, "Zed", "left", "no_such_seat"),
        (0, "", "left", "name_required"),
        (0, "Zed", " ", "reason_required"),
        (0, "bob", "left", "substitute_at_table"),
    ],
)
def test_a_substitution_is_refused_with_its_reason(
    club: Club, olga: User, seat: int, name: str, reason: str, code: str
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    with pytest.raises(DomainError) as refused:
        discipline.substitute_seat(game=game, by=olga, seat=seat, name=name, reason=reason)
    assert refused.value.code == code
    assert not Substitution.objects.exists()


def test_a_seat_takes_one_substitute_and_a_finished_game_none(club: Club, olga: User) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    discipline.substitute_seat(game=game, by=olga, seat=0, name="Zed", reason="left")
    with pytest.raises(DomainError) as twice:
        discipline.substitute_seat(game=game, by=olga, seat=0, name="Yan", reason="left")
    assert (twice.value.code, twice.value.http_status) == ("seat_substituted", 409)
    recording.round_record(game=game, by=olga, dollars=ROUND)
    with pytest.raises(DomainError) as over:
        discipline.substitute_seat(game=game, by=olga, seat=1, name="Yan", reason="left")
    assert (over.value.code, over.value.http_status) == ("game_over", 409)


def test_only_an_organiser_seats_a_substitute_or_gives_a_penalty(
    club: Club, alice: User, olga: User
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob"])
    with pytest.raises(DomainError) as seat:
        discipline.substitute_seat(game=game, by=alice, seat=1, name="Zed", reason="left")
    with pytest.raises(DomainError) as penalty:
        discipline.penalty_give(
            competition=club.competition, by=alice, competitor=club.players["Bob"],
            kind="points", amount=1, reason="late",
        )  # fmt: skip
    assert {seat.value.http_status, penalty.value.http_status} == {403}
    assert not Substitution.objects.exists()
    assert not Penalty.objects.exists()


# --- penalties ------------------------------------------------------------------------------


@pytest.fixture
def played(club: Club, olga: User) -> Game:
    """Alice first, Bob second, Carol last at the club's night."""
    with time_machine.travel(dt.datetime(2026, 3, 3, 21, 0, tzinfo=dt.UTC), tick=False):
        game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
        recording.round_record(game=game, by=olga, dollars=ROUND)
    return game


GIVEN = dt.datetime(2026, 3, 5, 12, 0, tzinfo=dt.UTC)


def test_a_points_penalty_comes_off_the_total_and_changes_the_rank(
    club: Club, olga: User, played: Game
) -> None:
    with time_machine.travel(GIVEN, tick=False):
        penalty = discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Alice"],
            kind="points", amount=0.75, reason="slow play", night=club.night,
        )  # fmt: skip

    alice = standing(club, "Alice")
    assert (alice["points"], alice["penalty_points"], alice["rank"]) == (0.25, 0.75, 2)
    assert standing(club, "Bob")["rank"] == 1
    assert standing(club, "Alice", night=club.night)["points"] == 0.25
    # the clock of record: before it was given, no penalty
    before = standing(club, "Alice", as_of=GIVEN - dt.timedelta(minutes=1))
    assert (before["points"], before["penalty_points"]) == (1.0, 0.0)
    # the clock of play: it was given at the night of 2026-03-03, counted from then
    assert standing(club, "Alice", after_night=dt.date(2026, 3, 2))["penalty_points"] == 0.0
    assert standing(club, "Alice", after_night=dt.date(2026, 3, 3))["penalty_points"] == 0.75
    log = ChangeLog.objects.get(action="penalty_given")
    assert (log.reason, log.after) == ("slow play", {"kind": "points", "amount": 0.75})
    assert penalty.night == club.night
    assert alice["penalty_dollars"] == 0  # points only


def test_a_nights_standings_take_off_only_that_nights_penalties(
    club: Club, olga: User, played: Game
) -> None:
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    for night, amount in ((club.night, 0.75), (later, 1 / 3)):
        discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Alice"],
            kind="points", amount=amount, reason="slow play", night=night,
        )  # fmt: skip

    assert standing(club, "Alice", night=club.night)["penalty_points"] == 0.75
    assert standing(club, "Alice")["penalty_points"] == 1.0833  # the season's, to 4 places


def test_a_dollars_penalty_comes_off_the_dollars_not_the_points(
    club: Club, olga: User, played: Game
) -> None:
    discipline.penalty_give(
        competition=club.competition, by=olga, competitor=club.players["Bob"],
        kind="dollars", amount=50_000, reason="dropped a card",
    )  # fmt: skip

    bob = standing(club, "Bob")
    assert (bob["dollars"], bob["penalty_dollars"], bob["points"]) == (150_000, 50_000, 0.5)


def test_a_penalty_at_no_night_given_goes_to_the_last_night_up_to_today(
    club: Club, olga: User
) -> None:
    with time_machine.travel(GIVEN, tick=False):
        penalty = discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Bob"],
            kind="points", amount=1, reason="late",
        )  # fmt: skip
    assert penalty.night == club.night


def test_a_penalty_given_ahead_for_a_later_night_counts_from_that_night(
    club: Club, olga: User, played: Game
) -> None:
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    with time_machine.travel(GIVEN, tick=False):  # typed in on the 5th for the 10th
        discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Alice"],
            kind="points", amount=0.5, reason="will leave early", night=later,
        )  # fmt: skip

    assert standing(club, "Alice", after_night=dt.date(2026, 3, 5))["penalty_points"] == 0.0
    assert standing(club, "Alice", after_night=dt.date(2026, 3, 10))["penalty_points"] == 0.5


def test_a_penalty_at_no_night_counts_from_the_day_it_was_given(club: Club, olga: User) -> None:
    before_the_first_night = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
    with time_machine.travel(before_the_first_night, tick=False):
        penalty = discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Bob"],
            kind="points", amount=1, reason="skipped the draw",
        )  # fmt: skip

    assert penalty.night is None  # no night up to that day
    assert standing(club, "Bob", after_night=dt.date(2026, 3, 1))["penalty_points"] == 0.0
    assert standing(club, "Bob", after_night=dt.date(2026, 3, 2))["penalty_points"] == 1.0


@pytest.mark.parametrize(
    ("kind", "amount", "reason", "code"),
    [
        ("points", 0, "late", "invalid_amount"),
        ("points", 1001, "late", "invalid_amount"),
        ("dollars", 10.5, "late", "invalid_amount"),
        ("fines", 1, "late", "invalid_kind"),
        ("points", 1, "  ", "reason_required"),
    ],
)
def test_a_penalty_is_refused_with_its_reason(
    club: Club, olga: User, kind: str, amount: float, reason: str, code: str
) -> None:
    with pytest.raises(DomainError) as refused:
        discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Bob"],
            kind=kind, amount=amount, reason=reason,
        )  # fmt: skip
    assert refused.value.code == code
    assert refused.value.details["field"] in ("amount", "kind", "reason")
    assert not Penalty.objects.exists()


# --- the API --------------------------------------------------------------------------------


def test_the_api_gives_and_lists_penalties_and_the_csv_shows_them(
    club: Club, olga: User, played: Game, api: APIClient, api_as: Callable[[User], APIClient]
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/penalties/"
    body = {
        "competitor": club.players["Alice"].pk,
        "kind": "points",
        "amount": 0.5,
        "reason": "slow play",
    }
    given = api_as(olga).post(url, body, format="json")
    assert given.status_code == 201, given.content
    assert given.json()["name"] == "Alice"
    assert given.json()["night"] == "2026-03-03"

    listed = api.get(url).json()
    assert [(p["name"], p["amount"], p["reason"]) for p in listed] == [("Alice", 0.5, "slow play")]
    rows = api.get(f"/api/v1/competitions/{club.competition.pk}/standings/").json()
    alice = next(r for r in rows if r["name"] == "Alice")
    assert (alice["points"], alice["penalty_points"]) == (0.5, 0.5)
    exported = api.get(f"/api/v1/competitions/{club.competition.pk}/standings/?format=csv")
    table = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert next(r for r in table if r["name"] == "Alice")["penalty_points"] == "0.5"


def test_the_api_refuses_a_penalty_with_a_stable_code(
    club: Club, olga: User, bob: User, api_as: Callable[[User], APIClient]
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/penalties/"
    body = {"competitor": club.players["Alice"].pk, "kind": "dollars", "amount": 1.5}
    refused = api_as(olga).post(url, {**body, "reason": "late"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (422, "invalid_amount")
    no_reason = api_as(olga).post(url, {**body, "amount": 5000}, format="json")
    assert (no_reason.status_code, no_reason.json()["code"]) == (422, "reason_required")
    stranger = api_as(bob).post(url, {**body, "competitor": 999_999}, format="json")
    assert (stranger.status_code, stranger.json()["code"]) == (403, "permission_denied")
    assert not Penalty.objects.exists()


def test_the_api_seats_and_lists_substitutes(
    club: Club, olga: User, bob: User, api: APIClient, api_as: Callable[[User], APIClient]
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    url = f"/api/v1/recorded-games/{game.pk}/substitutes/"
    member = Member.objects.get(name="Dora").pk
    body = {"seat": 1, "member": member, "reason": "train to catch"}

    refused = api_as(bob).post(url, body, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    seated = api_as(olga).post(url, body, format="json")
    assert seated.status_code == 201, seated.content
    assert api.get(url).json()[0] | {"created_at": None} == {
        "id": seated.json()["id"], "game": game.pk, "seat": 1, "absent": "Bob",
        "substitute_name": "Dora", "from_round": 1, "policy": "fixed",
        "reason": "train to catch", "by": "olga", "created_at": None,
    }  # fmt: skip
    again = api_as(olga).post(url, body, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "seat_substituted")
    sheet = api.get(f"/api/v1/recorded-games/{game.pk}/rounds/")
    assert sheet.status_code == 200


# --- the desk's page actions ----------------------------------------------------------------


def test_the_desk_seats_a_substitute_and_gives_a_penalty(
    club: Club, olga: User, client: Client
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    client.force_login(olga)
    desk = f"/nights/{club.night.pk}/desk/"
    # the desk's seats are the round in play's tables: this game was opened by hand
    posted = client.post(
        f"/nights/{club.night.pk}/substitute/",
        {"seat": f"{game.pk}:1", "name": "Zed", "reason": "left early"},
    )
    assert posted.status_code == 400  # not a table of a drawn round: no such choice
    assert "left early" in posted.content.decode()  # what was typed is kept

    posted = client.post(
        f"/nights/{club.night.pk}/penalty/",
        {
            "competitor": club.players["Bob"].pk,
            "kind": "points",
            "amount": "0.5",
            "reason": "phone at the table",
        },
    )
    assert posted.status_code == 302
    assert posted["Location"].endswith(f"{desk}#discipline")
    page = text(client.get(desk).content)
    assert f"Bob : {MINUS}0.50 points (March 3, 2026). phone at the table" in page
    standings = text(client.get(f"/seasons/{club.season.pk}/standings/").content)
    assert "phone at the table" in standings


def test_a_refused_penalty_is_said_beside_its_field_with_what_was_typed(
    club: Club, olga: User, client: Client
) -> None:
    client.force_login(olga)
    posted = client.post(
        f"/nights/{club.night.pk}/penalty/",
        {
            "competitor": club.players["Bob"].pk,
            "kind": "dollars",
            "amount": "10.5",
            "reason": "phone at the table",
        },
    )
    assert posted.status_code == 400
    html = posted.content.decode()
    assert 'id="penalty_amount_error"' in html
    assert "whole number of dollars" in html
    assert 'value="phone at the table"' in html
    assert not Penalty.objects.exists()


def test_a_player_may_not_use_the_desks_actions(
    club: Club, olga: User, bob: User, client: Client
) -> None:
    client.force_login(bob)
    for action, body in (
        ("penalty", {"competitor": club.players["Bob"].pk, "kind": "points", "amount": "1"}),
        ("substitute", {"seat": "1:0", "name": "Zed", "reason": "x"}),
    ):
        assert client.post(f"/nights/{club.night.pk}/{action}/", body).status_code == 403
    assert not Penalty.objects.exists()
    assert not Substitution.objects.exists()


def test_the_league_page_changes_the_substitute_policy(
    club: Club, olga: User, client: Client
) -> None:
    client.force_login(olga)
    page = client.get("/leagues/tuesday/").content.decode()
    assert 'name="substitute_policy"' in page
    assert "is scored last at the table" in text(page)

    client.post(
        "/leagues/tuesday/settings/",
        {"organiser_entries_settle": "on", "substitute_policy": "seat"},
    )

    club.season.league.refresh_from_db()
    assert club.season.league.substitute_policy == "seat"
    log = ChangeLog.objects.get(subject="substitute policy")
    assert (log.before, log.after) == ("fixed", "seat")


def test_the_sheet_shows_the_substitute_in_the_seat(club: Club, olga: User, client: Client) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    discipline.substitute_seat(game=game, by=olga, seat=0, name="Zed", reason="went home")
    client.force_login(olga)

    sheet = text(client.get(f"/sheets/{game.pk}/").content)

    assert "Zed for Alice" in sheet


def alice_and_bob_cup(olga: User, alice: User, bob: User, format: str) -> Tournament:
    """olga's recorded two-round tournament of alice and bob at a table of two, not
    started yet."""
    cup = running.tournament_create(
        by=olga, name="Cup", format=format, entrants="humans", rules=RuleSet.preset("2021"),
        rounds=2, table_sizes=[2], preferred_size=2, play="recorded",
    )  # fmt: skip
    for user in (alice, bob):
        running.entrant_add(tournament=cup, by=olga, user=user)
    return cup


def test_a_tournament_penalty_counts_from_its_latest_round(
    olga: User, alice: User, bob: User
) -> None:
    cup = alice_and_bob_cup(olga, alice, bob, "round_robin")
    running.tournament_start(tournament=cup, by=olga)
    competitor = cup.competition.competitors.get(user=bob)

    penalty = discipline.penalty_give(
        competition=cup.competition, by=olga, competitor=competitor,
        kind="points", amount=1, reason="late for round 1",
    )  # fmt: skip

    assert penalty.round is not None
    assert penalty.round.number == 1
    rows = {r["name"]: r for r in selectors.standings(cup.competition, after_round=1)}
    assert rows[competitor.name]["points"] == -1.0
    assert rows[competitor.name]["rank"] == 2


def test_a_tournament_penalty_given_before_its_first_round_counts_after_every_round(
    olga: User, alice: User, bob: User
) -> None:
    cup = alice_and_bob_cup(olga, alice, bob, "swiss")
    competitor = cup.competition.competitors.get(user=bob)
    penalty = discipline.penalty_give(
        competition=cup.competition, by=olga, competitor=competitor,
        kind="points", amount=1, reason="registered late",
    )  # fmt: skip
    running.tournament_start(tournament=cup, by=olga)

    assert penalty.round is None  # a Swiss tournament has no round before it starts
    rows = {r["name"]: r for r in selectors.standings(cup.competition, after_round=1)}
    assert rows[competitor.name]["penalty_points"] == 1.0


def listing_queries(api: APIClient, competition: Competition, give: Callable[[str], object]) -> int:
    """The queries the API's list of penalties took with three penalties, less those with
    one: what each penalty costs beyond the first."""
    url = f"/api/v1/competitions/{competition.pk}/penalties/"
    give("late")
    with CaptureQueriesContext(connection) as one:
        assert len(api.get(url).json()) == 1
    give("late again")
    give("later still")
    with CaptureQueriesContext(connection) as three:
        assert len(api.get(url).json()) == 3
    return len(three.captured_queries) - len(one.captured_queries)


def test_a_seasons_penalties_are_listed_in_queries_that_do_not_grow_with_them(
    club: Club, olga: User, api: APIClient
) -> None:
    def give(reason: str) -> Penalty:
        return discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Bob"],
            kind="points", amount=1, reason=reason, night=club.night,
        )  # fmt: skip

    assert listing_queries(api, club.competition, give) == 0


def test_a_tournaments_penalties_are_listed_in_queries_that_do_not_grow_with_them(
    olga: User, alice: User, bob: User, api: APIClient
) -> None:
    cup = alice_and_bob_cup(olga, alice, bob, "round_robin")
    running.tournament_start(tournament=cup, by=olga)
    bob_in_it = cup.competition.competitors.get(user=bob)

    def give(reason: str) -> Penalty:
        return discipline.penalty_give(
            competition=cup.competition, by=olga, competitor=bob_in_it,
            kind="points", amount=1, reason=reason,
        )  # fmt: skip

    assert listing_queries(api, cup.competition, give) == 0
    listed = api.get(f"/api/v1/competitions/{cup.competition.pk}/penalties/").json()
    assert [(p["round"], p["by"]) for p in listed] == [(1, "olga")] * 3


# --- withdrawing a penalty given by mistake -----------------------------------------------


def test_a_withdrawn_penalty_stops_counting_and_the_clock_of_record_still_shows_it(
    club: Club, olga: User, played: Game
) -> None:
    with time_machine.travel(GIVEN, tick=False):
        penalty = discipline.penalty_give(
            competition=club.competition, by=olga, competitor=club.players["Alice"],
            kind="points", amount=0.75, reason="slow play", night=club.night,
        )  # fmt: skip
    withdrawn_at = GIVEN + dt.timedelta(hours=1)
    with time_machine.travel(withdrawn_at, tick=False):
        discipline.penalty_withdraw(penalty=penalty, by=olga, reason="it was Bob")

    assert standing(club, "Alice")["penalty_points"] == 0.0
    assert standing(club, "Alice", after_night=dt.date(2026, 3, 3))["penalty_points"] == 0.0
    # as recorded in between, the standings had it
    between = standing(club, "Alice", as_of=withdrawn_at - dt.timedelta(minutes=1))
    assert between["penalty_points"] == 0.75
    assert standing(club, "Alice", as_of=withdrawn_at)["penalty_points"] == 0.0
    log = ChangeLog.objects.get(action="penalty_withdrawn")
    assert (log.reason, log.before) == ("it was Bob", {"kind": "points", "amount": 0.75})
    assert Penalty.objects.filter(pk=penalty.pk).exists()  # kept, never deleted


def test_a_penalty_is_withdrawn_once_by_an_organiser_with_a_reason(
    club: Club, olga: User, played: Game, alice: User
) -> None:
    penalty = discipline.penalty_give(
        competition=club.competition, by=olga, competitor=club.players["Bob"],
        kind="dollars", amount=50_000, reason="card shown",
    )  # fmt: skip

    with pytest.raises(DomainError) as not_organiser:
        discipline.penalty_withdraw(penalty=penalty, by=alice, reason="please")
    with pytest.raises(DomainError) as no_reason:
        discipline.penalty_withdraw(penalty=penalty, by=olga, reason="  ")
    discipline.penalty_withdraw(penalty=penalty, by=olga, reason="a mistake")
    with pytest.raises(DomainError) as again:
        discipline.penalty_withdraw(penalty=penalty, by=olga, reason="a mistake")

    assert (not_organiser.value.code, not_organiser.value.http_status) == ("permission_denied", 403)
    assert no_reason.value.code == "reason_required"
    assert (again.value.code, again.value.http_status) == ("already_withdrawn", 409)


def test_the_api_withdraws_a_penalty(
    club: Club,
    olga: User,
    played: Game,
    api: APIClient,
    api_as: Callable[[User], APIClient],
    alice: User,
) -> None:
    penalty = discipline.penalty_give(
        competition=club.competition, by=olga, competitor=club.players["Alice"],
        kind="points", amount=0.5, reason="slow play",
    )  # fmt: skip
    url = f"/api/v1/competitions/{club.competition.pk}/penalties/withdraw/"
    body = {"penalty": penalty.pk, "reason": "misheard"}

    anonymous = api.post(url, body, format="json")
    player = api_as(alice).post(url, body, format="json")
    unknown = api_as(olga).post(url, {**body, "penalty": penalty.pk + 1000}, format="json")
    withdrawn = api_as(olga).post(url, body, format="json")
    again = api_as(olga).post(url, body, format="json")

    assert anonymous.status_code == 401
    assert (player.status_code, player.json()["code"]) == (403, "permission_denied")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    assert withdrawn.status_code == 200, withdrawn.content
    assert withdrawn.json()["withdraw_reason"] == "misheard"
    assert withdrawn.json()["withdrawn_at"] is not None
    assert (again.status_code, again.json()["code"]) == (409, "already_withdrawn")
    listed = api.get(f"/api/v1/competitions/{club.competition.pk}/penalties/").json()
    assert listed == []  # only penalties in force


def test_the_desk_withdraws_a_penalty_and_a_refusal_keeps_what_was_typed(
    club: Club, olga: User, played: Game, client: Client
) -> None:
    penalty = discipline.penalty_give(
        competition=club.competition, by=olga, competitor=club.players["Bob"],
        kind="points", amount=0.5, reason="phone at the table", night=club.night,
    )  # fmt: skip
    client.force_login(olga)
    desk = f"/nights/{club.night.pk}/desk/"
    url = f"/nights/{club.night.pk}/penalty/withdraw/"
    assert "Withdraw a penalty" in text(client.get(desk).content)

    refused = client.post(url, {"penalty": penalty.pk, "reason": ""})
    withdrawn = client.post(url, {"penalty": penalty.pk, "reason": "it was someone else"})

    assert refused.status_code == 400
    assert 'id="withdraw_reason"' in refused.content.decode()
    assert withdrawn.status_code == 302
    assert withdrawn["Location"].endswith(f"{desk}#discipline")
    page = text(client.get(desk).content)
    assert "phone at the table" not in page
    assert "Withdraw a penalty" not in page  # none left tonight
    standings = text(client.get(f"/seasons/{club.season.pk}/standings/").content)
    assert "phone at the table" not in standings
