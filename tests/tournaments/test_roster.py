"""A league's roster (tournaments.roster): players typed once, reused by every season,
night and tournament of the club; guests linked to accounts later."""

from __future__ import annotations

import datetime as dt

import pytest

from accounts.models import User
from tests.factories import UserFactory
from tests.tournaments.conftest import QUICK, Club, settled_game
from tests.tournaments.test_recording import refused
from tournaments import roster, running, selectors, services
from tournaments.models import ChangeLog, Competitor, Member


def test_an_organiser_puts_accounts_and_guests_on_the_roster(club: Club, olga: User) -> None:
    league = club.season.league
    erin = UserFactory.create(username="erin")

    account = roster.member_add(league=league, by=olga, user=erin)
    guest = roster.member_add(league=league, by=olga, name="  Frank ")

    assert (account.name, account.user) == ("erin", erin)
    assert (guest.name, guest.user) == ("Frank", None)


def test_players_added_to_a_season_are_on_the_roster_without_typing_them_again(
    club: Club,
) -> None:
    names = set(Member.objects.filter(league=club.season.league).values_list("name", flat=True))

    assert names == {"Alice", "Bob", "Carol", "Dora"}
    assert all(c.member is not None for c in club.players.values())


def test_each_competitor_added_is_logged_with_the_organiser_who_added_them(
    club: Club, olga: User
) -> None:
    logged = ChangeLog.objects.filter(competition=club.competition, action="competitor_added")

    assert {(c.subject, c.actor) for c in logged} == {
        (name, olga) for name in ("Alice", "Bob", "Carol", "Dora")
    }


def test_a_new_season_takes_its_players_from_the_roster(club: Club, olga: User) -> None:
    autumn = services.season_create(
        league=club.season.league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    dora = club.players["Dora"].member
    assert dora is not None

    again = services.competitor_add(competition=autumn.competition, by=olga, member=dora)

    assert (again.name, again.member, again.user) == ("Dora", dora, None)


def test_a_club_tournament_takes_its_entrants_from_the_roster(
    club: Club, olga: User, alice: User
) -> None:
    tournament = running.tournament_create(
        by=olga,
        name="Club Cup",
        format="round_robin",
        entrants="humans",
        play="recorded",
        rules=QUICK,
        rounds=2,
        table_sizes=[2],
        preferred_size=2,
        league=club.season.league,
    )
    member = club.players["Alice"].member
    assert member is not None

    entrant = running.entrant_add(tournament=tournament, by=olga, member=member)

    assert (entrant.name, entrant.user, entrant.member) == ("Alice", alice, member)


def test_the_roster_refuses_a_second_player_of_the_same_name_or_account(
    club: Club, olga: User, alice: User
) -> None:
    league = club.season.league

    refused("name_taken", 409, roster.member_add, league=league, by=olga, name="DORA")
    refused(
        "already_on_roster", 409, roster.member_add, league=league, by=olga, user=alice, name="Al"
    )
    refused("invalid", 422, roster.member_add, league=league, by=olga, name="   ")
    assert Member.objects.filter(league=league).count() == 4


def test_only_the_leagues_organisers_change_its_roster(club: Club, alice: User) -> None:
    refused(
        "permission_denied", 403, roster.member_add, league=club.season.league, by=alice, name="X"
    )


def test_a_member_of_another_club_cannot_enter_this_clubs_season(club: Club, olga: User) -> None:
    other = services.league_create(by=olga, name="Other", slug="other", rules=QUICK)
    stranger = roster.member_add(league=other, by=olga, name="Stranger")

    refused(
        "not_on_roster", 422, services.competitor_add,
        competition=club.competition, by=olga, member=stranger,
    )  # fmt: skip


def test_linking_a_guest_gives_the_account_its_results_in_every_season(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    settled_game(club, olga, ["Dora", "Alice"], [300_000, 100_000])
    autumn = services.season_create(
        league=club.season.league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    dora_member = club.players["Dora"].member
    assert dora_member is not None
    services.competitor_add(competition=autumn.competition, by=olga, member=dora_member)
    dora = UserFactory.create(username="dora")

    roster.member_link(member=dora_member, by=olga, user=dora)

    assert set(Competitor.objects.filter(member=dora_member).values_list("user", flat=True)) == {
        dora.pk
    }
    top = selectors.standings(club.competition)[0]
    assert (top["name"], Competitor.objects.get(pk=top["competitor"]).user) == ("Dora", dora)
    assert ChangeLog.objects.filter(action="guest_linked", subject="Dora").count() == 2


def test_linking_refuses_an_account_already_playing_or_already_on_the_roster(
    club: Club, olga: User, alice: User
) -> None:
    dora_member = club.players["Dora"].member
    assert dora_member is not None

    frank = roster.member_add(league=club.season.league, by=olga, name="Frank")

    refused("already_entered", 409, roster.member_link, member=dora_member, by=olga, user=alice)
    refused("already_on_roster", 409, roster.member_link, member=frank, by=olga, user=alice)
    refused(
        "already_linked", 409, roster.member_link,
        member=club.players["Alice"].member, by=olga, user=UserFactory.create(),
    )  # fmt: skip
    assert Member.objects.get(pk=dora_member.pk).user is None


@pytest.mark.parametrize("by", ["alice", "bob"])
def test_only_organisers_link_guests(club: Club, by: str, request: pytest.FixtureRequest) -> None:
    user: User = request.getfixturevalue(by)
    dora_member = club.players["Dora"].member

    refused(
        "permission_denied", 403, roster.member_link,
        member=dora_member, by=user, user=UserFactory.create(),
    )  # fmt: skip


def test_a_season_with_a_long_name_in_a_league_with_a_long_name_starts(olga: User) -> None:
    league = services.league_create(by=olga, name="L" * 120, slug="long", rules=QUICK)

    season = services.season_create(
        league=league, by=olga, name="S" * 120, starts_on=dt.date(2026, 9, 1)
    )

    assert season.name == "S" * 120
    assert season.competition.name == ("L" * 120)[:120]  # the standings' label, cut to fit


def test_an_organiser_adds_another_who_may_then_run_the_league_and_every_season_logs_it(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    league = club.season.league
    autumn = services.season_create(
        league=league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    refused(
        "permission_denied", 403, services.league_organiser_add, league=league, by=alice, user=bob
    )

    services.league_organiser_add(league=league, by=olga, user=alice)

    assert set(league.organisers.values_list("username", flat=True)) == {"olga", "alice"}
    assert roster.member_add(league=league, by=alice, name="Frank").name == "Frank"
    logged = ChangeLog.objects.filter(action="organiser_added")
    assert {(c.competition_id, c.actor, c.subject) for c in logged} == {
        (club.competition.pk, olga, "organiser alice"),
        (autumn.competition.pk, olga, "organiser alice"),
    }


def test_a_club_guest_linked_through_the_competition_is_linked_on_the_roster(
    club: Club, olga: User
) -> None:
    dora = UserFactory.create(username="dora")

    linked = services.competitor_link(competitor=club.players["Dora"], by=olga, user=dora)

    assert (linked.pk, linked.user) == (club.players["Dora"].pk, dora)
    assert Member.objects.get(name="Dora").user == dora


def test_a_guest_of_a_tournament_of_no_league_is_linked_to_an_account_once(
    olga: User, alice: User, bob: User
) -> None:
    cup = running.tournament_create(
        by=olga, name="Cup", format="round_robin", entrants="humans", play="recorded",
        rules=QUICK, rounds=1, table_sizes=[2], preferred_size=2,
    )  # fmt: skip
    running.entrant_add(tournament=cup, by=olga, user=alice)
    other = services.competition_create(kind="tournament", name="Other", tiebreaks=[], best_of=None)
    Competitor.objects.create(competition=other, name="Bob", user=bob, number=0)  # elsewhere
    zed, yan = (running.entrant_add(tournament=cup, by=olga, name=n) for n in ("Zed", "Yan"))
    refused("permission_denied", 403, services.competitor_link, competitor=zed, by=bob, user=bob)
    error = refused(
        "already_entered", 409, services.competitor_link, competitor=zed, by=olga, user=alice
    )
    assert error.message == "That account is already entered."

    linked = services.competitor_link(competitor=zed, by=olga, user=bob)

    assert Competitor.objects.get(pk=zed.pk).user == bob == linked.user
    change = ChangeLog.objects.get(action="guest_linked")
    assert (change.competition, change.actor, change.subject) == (cup.competition, olga, "Zed")
    assert change.after == {"user": "bob"}
    error = refused(
        "already_linked", 409, services.competitor_link, competitor=linked, by=olga, user=olga
    )
    assert error.message == "This competitor already has an account."
    assert Competitor.objects.get(pk=yan.pk).user is None
