"""A league's game night (tournaments.nights): check-in, and seating draws among those
who came, one recorded game a table, seated by the optimiser over the season so far."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

import pytest

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.tournaments.conftest import Club
from tests.tournaments.test_recording import refused
from tournaments import nights, recording, roster, tables
from tournaments.models import ChangeLog, CheckIn, Competitor, GameEntry, Member, NightRound


def roster_of(club: Club, olga: User, n: int) -> list[Member]:
    """The club's four players and guests up to n, on the roster."""
    league = club.season.league
    members = list(Member.objects.filter(league=league).order_by("pk"))
    for i in range(len(members), n):
        members.append(roster.member_add(league=league, by=olga, name=f"Guest {i + 1}"))
    return members[:n]


def check_in(club: Club, olga: User, n: int) -> list[Member]:
    members = roster_of(club, olga, n)
    for member in members:
        nights.night_check_in(night=club.night, by=olga, member=member)
    return members


def finish(round_: NightRound, olga: User) -> None:
    """Every table plays its (quick, one-round) game; the organiser enters it."""
    for table in tables.night_rounds(round_.night)[round_.number - 1].tables:
        n = len(table.players)
        dollars = [300_000, 150_000, 50_000, 20_000, 10_000, 0][:n]
        recording.round_record(game=Game.objects.get(pk=table.game), by=olga, dollars=dollars)


# --- check-in ----------------------------------------------------------------------------


def test_an_organiser_checks_players_in_and_each_becomes_a_competitor_once(
    club: Club, olga: User
) -> None:
    members = check_in(club, olga, 6)

    checked = CheckIn.objects.filter(night=club.night)
    assert checked.count() == 6
    assert {c.competitor.member for c in checked} == set(members)
    assert club.competition.competitors.count() == 6  # the 4 players and 2 new guests
    assert ChangeLog.objects.filter(action="checked_in").count() == 6


def test_a_player_checks_themself_in_but_nobody_else(club: Club, alice: User, bob: User) -> None:
    alice_member = Member.objects.get(user=alice)
    bob_member = Member.objects.get(user=bob)

    nights.night_check_in(night=club.night, by=alice, member=alice_member)

    refused(
        "permission_denied",
        403,
        nights.night_check_in,
        night=club.night,
        by=alice,
        member=bob_member,
    )
    assert list(CheckIn.objects.values_list("competitor__name", flat=True)) == ["Alice"]


def test_checking_in_twice_is_refused_and_changes_nothing(club: Club, olga: User) -> None:
    member = Member.objects.get(name="Dora")
    nights.night_check_in(night=club.night, by=olga, member=member)

    refused(
        "already_checked_in", 409, nights.night_check_in, night=club.night, by=olga, member=member
    )
    assert CheckIn.objects.count() == 1


def test_a_new_roster_member_checked_in_joins_the_season(club: Club, olga: User) -> None:
    erin = UserFactory.create(username="erin")
    member = roster.member_add(league=club.season.league, by=olga, user=erin)

    nights.night_check_in(night=club.night, by=olga, member=member)

    assert club.competition.competitors.get(member=member).user == erin


def test_checking_out_leaves_a_player_out_of_the_next_draw(club: Club, olga: User) -> None:
    members = check_in(club, olga, 5)

    nights.night_check_out(night=club.night, by=olga, member=members[4])
    round_ = nights.night_draw(night=club.night, by=olga, seed=1)

    seated = set(
        GameEntry.objects.filter(night_round=round_).values_list("competitor__member", flat=True)
    )
    assert seated == {m.pk for m in members[:4]}
    refused(
        "not_checked_in", 404, nights.night_check_out, night=club.night, by=olga, member=members[4]
    )


# --- the draw -----------------------------------------------------------------------------


def test_13_players_are_drawn_at_tables_of_5_4_and_4_with_names_and_table_numbers(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 13)

    round_ = nights.night_draw(night=club.night, by=olga, seed=7)

    drawn = tables.night_rounds(club.night)
    assert [r.number for r in drawn] == [1]
    assert [t.number for t in drawn[0].tables] == [0, 1, 2]
    assert sorted(len(t.players) for t in drawn[0].tables) == [4, 4, 5]
    names = [p.name for t in drawn[0].tables for p in t.players]
    assert len(names) == len(set(names)) == 13
    assert all(t.status == Game.Status.ACTIVE for t in drawn[0].tables)
    games = Game.objects.filter(competition_entries__night_round=round_).distinct()
    assert {g.mode for g in games} == {Game.Mode.RECORDED}
    change = ChangeLog.objects.get(action="seating_drawn")
    assert isinstance(change.after, dict)
    assert sorted(map(len, change.after["tables"])) == [4, 4, 5]


def test_the_same_seed_draws_the_same_tables(club: Club, olga: User) -> None:
    check_in(club, olga, 9)
    first = nights.night_draw(night=club.night, by=olga, seed=3)
    seating = [[p.name for p in t.players] for t in tables.night_rounds(club.night)[0].tables]
    GameEntry.objects.filter(night_round=first).delete()
    first.delete()

    nights.night_draw(night=club.night, by=olga, seed=3)

    assert [
        [p.name for p in t.players] for t in tables.night_rounds(club.night)[0].tables
    ] == seating


def test_a_second_draw_waits_until_every_table_of_the_first_has_finished(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 8)
    first = nights.night_draw(night=club.night, by=olga, seed=1)

    error = refused("round_not_finished", 409, nights.night_draw, night=club.night, by=olga)
    assert len(error.details["games"]) == 2

    finish(first, olga)
    second = nights.night_draw(night=club.night, by=olga, seed=2)
    assert second.number == 2


def test_sixteen_players_meet_new_opponents_in_every_round_while_that_is_possible(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 16)
    met: Counter[tuple[int, int]] = Counter()
    for number in range(1, 4):
        round_ = nights.night_draw(night=club.night, by=olga, seed=number)
        for t in tables.night_rounds(club.night)[number - 1].tables:
            met.update(combinations(sorted(p.competitor for p in t.players), 2))
        assert round_.quality["repeated_pairs"] == 0, round_.quality
        finish(round_, olga)

    assert max(met.values()) == 1


def test_the_draw_refuses_a_field_the_tables_cannot_seat_and_writes_nothing(
    club: Club, olga: User
) -> None:
    check_in(club, olga, 1)

    refused("cannot_seat", 422, nights.night_draw, night=club.night, by=olga)
    refused(
        "invalid",
        422,
        nights.night_draw,
        night=club.night,
        by=olga,
        table_sizes=[4],
        preferred_size=5,
    )
    assert not NightRound.objects.exists()
    assert not Game.objects.exists()


@pytest.mark.parametrize("player", ["alice", "bob"])
def test_only_organisers_draw(
    club: Club, olga: User, player: str, request: pytest.FixtureRequest
) -> None:
    check_in(club, olga, 4)

    refused(
        "permission_denied",
        403,
        nights.night_draw,
        night=club.night,
        by=request.getfixturevalue(player),
    )
    assert not NightRound.objects.exists()


def test_the_sizes_around_a_preferred_table_stay_within_two_to_six() -> None:
    assert nights.sizes_around(4) == nights.DEFAULT_SIZES == (3, 4, 5)
    assert nights.sizes_around(6) == (5, 6)
    assert nights.sizes_around(2) == (2, 3)


def _pairs(round_: NightRound) -> set[tuple[int, int]]:
    """Who shared a table in a night's round, as pairs of competitor ids."""
    tables_ = tables.night_rounds(round_.night)[round_.number - 1].tables
    return {
        pair for t in tables_ for pair in combinations(sorted(p.competitor for p in t.players), 2)
    }


def _splits(players: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to seat ``players`` at tables of three (unordered)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for mates in combinations(rest, 2):
        others = [p for p in rest if p not in mates]
        for tables_ in _splits(others):
            yield [(first, *mates), *tables_]


def _fewest_consecutive(players: list[int], last: set[tuple[int, int]]) -> int:
    """The fewest pairs of ``last`` any seating at tables of three can seat together."""
    return min(
        len({pair for t in split for pair in combinations(sorted(t), 2)} & last)
        for split in _splits(players)
    )


def test_a_draw_counts_the_pairs_of_the_last_round_it_cannot_help_seating_again(
    club: Club, olga: User
) -> None:
    """Six players at tables of three: from round 2 on, each table holds two who sat
    together in the round before (three from two tables of three). The night page's
    figure says so; it is never zero then (issue 32)."""
    check_in(club, olga, 6)
    players = sorted(c.pk for c in Competitor.objects.filter(checkins__night=club.night))
    previous: set[tuple[int, int]] = set()
    for number in range(1, 4):
        round_ = nights.night_draw(
            night=club.night, by=olga, table_sizes=[3], preferred_size=3, seed=number
        )
        pairs = _pairs(round_)
        repeated = len(pairs & previous)
        assert round_.quality["consecutive_repeats"] == repeated == (2 if previous else 0)
        assert repeated == _fewest_consecutive(players, previous)
        previous = pairs
        finish(round_, olga)


def test_a_draw_avoids_who_sat_together_last_round_whenever_a_seating_can(
    club: Club, olga: User
) -> None:
    """Nine players at tables of three meet everyone in four rounds; from then on pairs
    must meet again. Each draw seats together as few pairs of the round just played as
    any seating can (none, here), and its figure says how many (issue 32)."""
    check_in(club, olga, 9)
    players = sorted(c.pk for c in Competitor.objects.filter(checkins__night=club.night))
    previous: set[tuple[int, int]] = set()
    for number in range(1, 7):
        round_ = nights.night_draw(
            night=club.night, by=olga, table_sizes=[3], preferred_size=3, seed=number
        )
        pairs = _pairs(round_)
        repeated = len(pairs & previous)
        assert round_.quality["consecutive_repeats"] == repeated, number
        assert repeated == _fewest_consecutive(players, previous), number
        previous = pairs
        finish(round_, olga)
