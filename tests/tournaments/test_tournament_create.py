"""Creating a tournament with its field at once, and the seating figures each round keeps.

A tournament created with its entrants is one transaction: a refusal about any entrant
(or a field the tables cannot seat) writes nothing, and names the argument it is about.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from accounts.models import User
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from games.models import Game
from tests.tournaments.conftest import QUICK, Club
from tournaments import recording, roster, rounds, running, seating, tables
from tournaments.models import ChangeLog, Competition, Member, Tournament, TournamentRound

pytestmark = pytest.mark.django_db


def field_of_eight(by: User, format: str, rounds: int) -> Tournament:
    tournament = running.tournament_create(
        by=by, name="Spring Cup", format=format, entrants="humans", play="recorded",
        rules=QUICK, rounds=rounds, table_sizes=[4], preferred_size=4, seed=7,
    )  # fmt: skip
    for i in range(8):
        running.entrant_add(tournament=tournament, by=by, name=f"P{i}")
    return tournament


def test_every_planned_round_keeps_the_figures_of_the_schedule_so_far(olga: User) -> None:
    tournament = field_of_eight(olga, "round_robin", 3)
    running.tournament_start(tournament=tournament, by=olga)

    rounds = list(TournamentRound.objects.filter(tournament=tournament).order_by("number"))
    plans = [r.plan for r in rounds]
    assert [r.quality for r in rounds] == [asdict(seating.quality(plans[:k])) for k in (1, 2, 3)]
    started = ChangeLog.objects.get(action="tournament_started")
    assert rounds[-1].quality == (started.after or {})["quality"]


def test_a_swiss_round_keeps_its_figures_when_it_is_seated(olga: User) -> None:
    tournament = field_of_eight(olga, "swiss", 2)
    first = running.tournament_start(tournament=tournament, by=olga)
    for table in tables.tournament_rounds([first])[first.pk]:
        game = Game.objects.get(pk=table.game)
        recording.round_record(game=game, by=olga, dollars=[300_000, 150_000, 50_000, 0])
    second = rounds.round_advance(tournament=tournament, number=1)

    assert second is not None
    plans = [first.plan, second.plan]
    assert second.quality == asdict(seating.quality(plans))
    assert first.quality == asdict(seating.quality(plans[:1]))


# --- created with its entrants --------------------------------------------------------------


def create(by: User, **kwargs: Any) -> Tournament:
    options: dict[str, Any] = {
        "name": "Spring Cup", "format": "round_robin", "entrants": "humans", "play": "recorded",
        "rules": QUICK, "rounds": 3, "table_sizes": [4], "preferred_size": 4, "seed": 7,
    }  # fmt: skip
    return running.tournament_create(by=by, **{**options, **kwargs})


def refusal(by: User, **kwargs: Any) -> DomainError:
    with pytest.raises(DomainError) as error:
        create(by, **kwargs)
    return error.value


def test_a_club_tournament_takes_roster_members_newcomers_and_accounts_at_once(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    league = club.season.league
    members = list(Member.objects.filter(name__in=["Carol", "Dora"]))
    tournament = create(
        olga,
        league=league,
        members=members,
        names=["Erin"],
        users=[alice, bob],
        table_sizes=[2, 3],
        preferred_size=3,
    )

    entrants = {c.name: c for c in tournament.competition.competitors.all()}
    assert sorted(entrants) == ["Alice", "Bob", "Carol", "Dora", "Erin"]  # the roster's names
    assert (entrants["Alice"].user, entrants["Bob"].user) == (alice, bob)
    assert entrants["Erin"].member == Member.objects.get(league=league, name="Erin")
    assert all(c.member is not None for c in entrants.values())
    assert sorted(c.number for c in entrants.values()) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("kwargs", "code", "field"),
    [
        ({"names": ["Ann", "Ben", "Cid", "Dee", "Eve"]}, "cannot_seat", "table_sizes"),
        ({"names": ["Ann"]}, "cannot_seat", "table_sizes"),
        ({"names": ["Ann", "Ben", "ANN", "Dee"]}, "name_taken", "names"),
        ({"names": ["Ann", "Ben", "Cid", "  "]}, "invalid", "names"),
        ({"names": ["Ann", "Ben", "Cid", "Dee"], "play": "digital"}, "needs_accounts", "names"),
    ],
)
def test_a_refused_field_writes_nothing_and_names_the_argument(
    olga: User, kwargs: dict[str, Any], code: str, field: str
) -> None:
    error = refusal(olga, **kwargs)

    assert (error.code, error.details["field"]) == (code, field)
    assert not Tournament.objects.exists()
    assert not Competition.objects.exists()
    assert not ChangeLog.objects.exists()


def test_a_refused_club_tournament_puts_nobody_on_the_roster(
    club: Club, olga: User, alice: User
) -> None:
    league = club.season.league
    before = Member.objects.filter(league=league).count()
    error = refusal(olga, league=league, names=["Erin", "Finn"], users=[alice, alice])

    assert (error.code, error.details["field"]) == ("name_taken", "users")
    assert Member.objects.filter(league=league).count() == before
    assert not Tournament.objects.exists()


def test_only_the_clubs_organisers_create_its_tournament(club: Club, alice: User) -> None:
    error = refusal(alice, league=club.season.league, names=["Ann", "Ben", "Cid", "Dee"])

    assert (error.code, error.http_status) == ("permission_denied", 403)


def test_a_roster_guest_cannot_play_online(club: Club, olga: User) -> None:
    league = club.season.league
    dora = roster.member_for(league=league, name="Dora", user=None)
    error = refusal(olga, league=league, members=[dora], play="digital", table_sizes=[2],
                    preferred_size=2, names=["Zed"])  # fmt: skip

    assert (error.code, error.details["field"]) == ("needs_accounts", "members")
    assert error.message == "Dora has no account: online play needs one for every entrant."


def test_a_clubs_bot_tournament_enters_bot_versions_and_keeps_them_off_its_roster(
    club: Club, olga: User
) -> None:
    version = builtin_versions()[0]
    cup = running.tournament_create(
        by=olga, name="Bot Cup", format="round_robin", entrants="bots", rules=QUICK,
        rounds=1, table_sizes=[2], preferred_size=2, league=club.season.league,
    )  # fmt: skip
    on_the_roster = set(Member.objects.values_list("pk", flat=True))

    entrant = running.entrant_add(tournament=cup, by=olga, bot_version=version)

    entrant.refresh_from_db()
    assert entrant.bot_version == version
    assert (entrant.name, entrant.user, entrant.member) == (
        f"{version.bot.name} v{version.number}",
        None,
        None,
    )
    assert set(Member.objects.values_list("pk", flat=True)) == on_the_roster
