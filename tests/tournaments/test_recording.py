"""Recording real-table games (tournaments.recording): enter, confirm, dispute, correct.

Every refusal is checked twice: its stable code and status, and that nothing was written
(no ledger record, no vote, no change-log line, no result). The HTTP side of the same
flows is in test_recording_api.py.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from accounts.models import User
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import EngineError, RuleSet
from games.models import Game, Round, RoundScore, Seat
from tests.factories import UserFactory
from tests.tournaments.conftest import QUICK, Club, recorded_game, settled_game
from tournaments import discipline, recording, running, selectors, services
from tournaments.models import (
    ChangeLog,
    Competitor,
    GameEntry,
    Member,
    NightRound,
    Result,
    ScoreRecord,
    ScoreVote,
)

CLASSIC_2 = RuleSet.preset("2021")  # first to $1,000,000


def ledger(game: Game) -> list[tuple[int, str, str, list[int]]]:
    return [
        (r.round_number, r.kind, r.status, r.dollars)
        for r in ScoreRecord.objects.filter(game=game).order_by("id")
    ]


def snapshot(club: Club) -> tuple[int, int, int, int]:
    """Counts of everything a refused request must leave alone."""
    comp = club.competition
    return (
        ScoreRecord.objects.count(),
        ScoreVote.objects.count(),
        ChangeLog.objects.filter(competition=comp).count(),
        Result.objects.filter(competition=comp).count(),
    )


def refused(code: str, status: int, call: object, *args: object, **kwargs: object) -> DomainError:
    """Call, expect a refusal with this code and HTTP status (the engine's errors too)."""
    assert callable(call)
    with pytest.raises((DomainError, EngineError)) as error:
        call(*args, **kwargs)
    value = error.value
    assert isinstance(value, DomainError | EngineError)
    assert (value.code, value.http_status) == (code, status)
    return value  # type: ignore[return-value]  # an EngineError has the same fields


# --- opening a recorded game ------------------------------------------------------------


def test_a_seated_player_opens_a_recorded_game_with_the_table_in_seat_order(
    club: Club, bob: User
) -> None:
    game = recorded_game(club, bob, ["Bob", "Dora", "Alice"])
    assert game.mode == Game.Mode.RECORDED
    assert game.status == Game.Status.ACTIVE
    assert game.seat_count == 3
    seats = list(Seat.objects.filter(game=game).values_list("number", "user__username"))
    assert seats == [(0, "bob"), (1, None), (2, "alice")]  # Dora is a guest: no account
    entries = GameEntry.objects.filter(game=game).order_by("seat")
    assert [e.competitor.name for e in entries] == ["Bob", "Dora", "Alice"]
    assert all(e.night == club.night for e in entries)
    change = ChangeLog.objects.get(competition=club.competition, action="game_recorded")
    assert change.actor == bob
    assert change.after == {"players": ["Bob", "Dora", "Alice"]}


def test_an_organiser_who_does_not_play_may_open_a_game(club: Club, olga: User) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob"])
    assert game.created_by == olga


def test_someone_neither_seated_nor_organising_cannot_open_a_game(club: Club, carol: User) -> None:
    before = (Game.objects.count(), snapshot(club))
    error = refused("permission_denied", 403, recorded_game, club, carol, ["Alice", "Bob"])
    assert error.message == "Organisers, or players at the table, record a game."
    assert (Game.objects.count(), snapshot(club)) == before


def test_a_player_cannot_sit_twice_at_one_table(club: Club, alice: User) -> None:
    before = Game.objects.count()
    error = refused("duplicate_competitor", 422, recorded_game, club, alice, ["Alice", "Alice"])
    assert error.message == "A player can sit at a table only once."
    assert Game.objects.count() == before


def test_players_of_another_competition_cannot_sit_at_the_table(
    club: Club, olga: User, alice: User
) -> None:
    other = services.competition_create(kind="tournament", name="Cup", tiebreaks=[], best_of=None)
    stranger = Competitor.objects.create(competition=other, name="Zed", number=0)
    error = refused(
        "not_a_competitor",
        422,
        recording.recorded_game_create,
        by=olga,
        competition=club.competition,
        competitors=[club.players["Alice"], stranger],
        rules=QUICK,
    )
    assert error.message == "Every player must be in this competition."
    assert not GameEntry.objects.filter(competitor=stranger).exists()


def test_a_game_opened_for_a_nights_seating_draw_keeps_its_draw_and_table(
    club: Club, olga: User
) -> None:
    draw = NightRound.objects.create(night=club.night, number=1, seed=7, created_by=olga)
    game = recording.recorded_game_create(
        by=olga,
        competition=club.competition,
        competitors=club.at("Carol", "Dora"),
        rules=QUICK,
        night=club.night,
        night_round=draw,
        table=1,
    )
    entries = GameEntry.objects.filter(game=game)
    assert {(e.night_round_id, e.table, e.round_id) for e in entries} == {(draw.pk, 1, None)}


def test_a_recorded_tournaments_tables_keep_their_round_and_table(olga: User) -> None:
    cup = running.tournament_create(
        by=olga, name="Cup", format="round_robin", entrants="humans", play="recorded",
        rules=QUICK, rounds=1, table_sizes=[2], preferred_size=2, seed=3,
    )  # fmt: skip
    for name in ("Ann", "Ben", "Cat", "Dan"):
        running.entrant_add(tournament=cup, by=olga, name=name)
    running.tournament_start(tournament=cup, by=olga)

    first = cup.round_set.get(number=1)
    entries = GameEntry.objects.filter(competition=cup.competition)
    by_table = {(e.round_id, e.table, e.night_round_id) for e in entries}
    assert by_table == {(first.pk, 0, None), (first.pk, 1, None)}
    assert entries.filter(table=0).values("game").distinct().count() == 1


def test_more_seats_than_the_rules_allow_are_refused_by_the_engine(club: Club, olga: User) -> None:
    extra = [
        services.competitor_add(competition=club.competition, by=olga, name=f"Guest {i}")
        for i in range(3)
    ]
    before = Game.objects.count()
    refused(
        "invalid_rules",
        422,
        recording.recorded_game_create,
        by=olga,
        competition=club.competition,
        competitors=[*club.at("Alice", "Bob", "Carol", "Dora"), *extra],
        rules=QUICK,
    )
    assert Game.objects.count() == before


# --- entering and confirming ---------------------------------------------------------------


def test_a_round_entered_by_a_player_waits_for_every_other_seated_account(
    club: Club, alice: User, bob: User, carol: User
) -> None:
    game = recorded_game(club, bob, ["Alice", "Bob", "Carol", "Dora"])
    record = recording.round_record(
        game=game, by=bob, dollars=[300_000, 200_000, 100_000, 0]
    ).record
    assert (record.round_number, record.kind, record.status) == (1, "enter", "pending")
    assert list(record.votes.values_list("voter__username", "verdict")) == [("bob", "confirm")]
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED  # the quick game ends after its round...
    assert game.winners == [0]
    assert not Result.objects.filter(competition=club.competition).exists()  # ...unconfirmed

    recording.round_vote(record=record, by=alice, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.PENDING  # carol has not confirmed
    assert not Result.objects.exists()

    recording.round_vote(record=record, by=carol, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED  # Dora is a guest: nobody to ask
    results = Result.objects.filter(competition=club.competition, valid_to__isnull=True)
    by_name = {r.competitor.name: r for r in results}
    assert {n: r.place for n, r in by_name.items()} == {"Alice": 1, "Bob": 2, "Carol": 3, "Dora": 4}
    assert by_name["Alice"].won
    assert by_name["Alice"].dollars == 300_000
    assert by_name["Alice"].dsi == pytest.approx(2.0)  # $300k of a $600k table of 4
    assert by_name["Dora"].dsi == 0.0
    assert by_name["Bob"].placement == pytest.approx(2 / 3)
    actions = list(
        ChangeLog.objects.filter(competition=club.competition)
        .order_by("id")
        .values_list("action", "actor__username")
    )
    assert actions[-3:] == [
        ("round_entered", "bob"),
        ("round_confirmed", "alice"),
        ("round_confirmed", "carol"),
    ]
    entered = ChangeLog.objects.get(action="round_entered")
    assert (entered.subject, entered.after) == (
        f"game {game.pk} round 1",
        [300_000, 200_000, 100_000, 0],
    )


def test_the_games_rounds_tallies_and_places_follow_the_entered_rounds(
    club: Club, olga: User
) -> None:
    game = settled_game(
        club,
        olga,
        ["Alice", "Bob"],
        [400_000, 300_000],
        [300_000, 500_000],
        [400_000, 100_000],
        rules=CLASSIC_2,
    )
    assert game.status == Game.Status.FINISHED
    assert game.winners == [0]  # $1,100,000 against $900,000
    assert Round.objects.filter(game=game).count() == 3
    tallies = list(
        RoundScore.objects.filter(round__game=game, round__number=3)
        .order_by("seat__number")
        .values_list("tally", flat=True)
    )
    assert tallies == [1_100_000, 900_000]
    assert list(Seat.objects.filter(game=game).values_list("place", "round_wins")) == [
        (1, 2),
        (2, 1),
    ]


def test_an_organiser_who_does_not_play_settles_a_round_by_entering_it(
    club: Club, olga: User
) -> None:
    game = recorded_game(club, olga, ["Alice", "Bob", "Carol"])
    record = recording.round_record(game=game, by=olga, dollars=[10_000, 20_000, 30_000]).record
    assert record.status == ScoreRecord.Status.CONFIRMED
    assert record.votes.get().as_organiser
    assert Result.objects.filter(competition=club.competition, valid_to__isnull=True).count() == 3


def test_a_table_of_one_account_and_guests_is_confirmed_by_that_account_entering_it(
    club: Club, alice: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Dora"])
    record = recording.round_record(game=game, by=alice, dollars=[100_000, 50_000]).record
    assert record.status == ScoreRecord.Status.CONFIRMED


def test_only_the_accounts_seated_at_this_table_are_waited_for(
    club: Club, alice: User, bob: User
) -> None:
    recorded_game(club, bob, ["Bob", "Carol"])  # bob and carol sit at another table
    game = recorded_game(club, alice, ["Alice", "Dora"])

    record = recording.round_record(game=game, by=alice, dollars=[100_000, 50_000]).record

    assert record.status == ScoreRecord.Status.CONFIRMED


def test_each_table_numbers_its_own_rounds(club: Club, olga: User) -> None:
    first = recorded_game(club, olga, ["Alice", "Bob"], rules=CLASSIC_2)
    second = recorded_game(club, olga, ["Carol", "Dora"], rules=CLASSIC_2)
    recording.round_record(game=first, by=olga, dollars=[100_000, 50_000])

    entry = recording.round_record(game=second, by=olga, dollars=[30_000, 60_000], number=1)

    assert entry.record.round_number == 1
    assert ledger(second) == [(1, "enter", "confirmed", [30_000, 60_000])]


def test_an_organiser_confirmation_settles_a_pending_round(
    club: Club, olga: User, bob: User
) -> None:
    game = recorded_game(club, bob, ["Alice", "Bob", "Carol"])
    record = recording.round_record(game=game, by=bob, dollars=[10_000, 20_000, 30_000]).record
    recording.round_vote(record=record, by=olga, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED
    assert record.votes.get(voter=olga).as_organiser


# --- refusals: nothing written ----------------------------------------------------------


@pytest.mark.parametrize(
    ("dollars", "code"),
    [
        ([7_000, 0, 0], "impossible_dollars"),  # not a sum of 2021 cards
        ([5_000, 0, 0], "impossible_dollars"),  # a single card is no set
        ([2_000_000, 0, 0], "dollars_above_deck"),  # more than the deck
        ([700_000, 690_000, 0], "round_total_too_high"),  # together more than the deck
        ([10_000, -10_000, 0], "negative_dollars"),
        ([10_000, 20_000], "wrong_seat_count"),
        ([10_000, 20_000, 0, 0], "wrong_seat_count"),
    ],
)
def test_impossible_rounds_are_refused_with_422_and_nothing_is_written(
    club: Club, alice: User, dollars: list[int], code: str
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"])
    before = snapshot(club)
    error = refused(code, 422, recording.round_record, game=game, by=alice, dollars=dollars)
    assert error.message
    assert snapshot(club) == before
    game.refresh_from_db()
    assert (game.status, game.version) == (Game.Status.ACTIVE, 0)


def test_seats_that_together_need_more_penny_jars_than_the_deck_are_refused(
    club: Club, alice: User
) -> None:
    """$7,000 + $7,000 + $6,000 each fit the deck alone, but need 5 of its 2 Penny Jars
    (RULES.md 1.2, #25): refused as a whole, naming the seat the deck runs out at."""
    jars = QUICK.with_options(advanced={"penny_jar": True})
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"], rules=jars)
    before = snapshot(club)
    error = refused(
        "not_enough_cards", 422, recording.round_record, game=game, by=alice,
        dollars=[7_000, 7_000, 6_000],
    )  # fmt: skip
    assert (error.details["seat"], error.details["needed"], error.details["deck_count"]) == (
        1,
        5,
        2,
    )
    assert snapshot(club) == before
    recording.round_record(game=game, by=alice, dollars=[7_000, 10_000, 0])  # jars to spare


def test_no_round_can_follow_the_one_that_ended_the_game(club: Club, olga: User) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    before = snapshot(club)
    error = refused(
        "game_already_ended", 422, recording.round_record, game=game, by=olga, dollars=[0, 10_000]
    )
    assert error.details == {"ended_after": 1}
    assert snapshot(club) == before


def test_a_classic_game_takes_rounds_until_someone_reaches_a_million(
    club: Club, olga: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [600_000, 300_000], rules=CLASSIC_2)
    assert game.status == Game.Status.ACTIVE
    recording.round_record(game=game, by=olga, dollars=[400_000, 100_000])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    refused("game_already_ended", 422, recording.round_record, game=game, by=olga, dollars=[0, 0])


def test_someone_not_at_the_table_cannot_enter_a_round(club: Club, alice: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    outsider = UserFactory.create(username="mallory")
    before = snapshot(club)
    error = refused(
        "not_seated", 403, recording.round_record, game=game, by=outsider, dollars=[10_000, 0]
    )
    assert error.message == "Only the table's players or an organiser enter rounds."
    assert snapshot(club) == before


def test_a_player_seated_at_another_table_cannot_enter_a_round_here(
    club: Club, alice: User, bob: User
) -> None:
    recorded_game(club, bob, ["Bob", "Carol"])
    game = recorded_game(club, alice, ["Alice", "Dora"])
    before = snapshot(club)
    refused("not_seated", 403, recording.round_record, game=game, by=bob, dollars=[10_000, 0])
    assert snapshot(club) == before


def test_a_game_played_on_the_platform_takes_no_entered_rounds(alice: User, bob: User) -> None:
    game = game_services.game_create(by=alice, rules=QUICK)
    game_services.game_join(game=game, user=bob)

    error = refused("not_recorded", 409, recording.round_record, game=game, by=alice, dollars=[0])

    assert error.message == "This game is played on the platform."


def test_a_voided_recorded_game_takes_no_more_rounds(club: Club, alice: User, staff: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    game_services.game_abort(game=game, by=staff, reason="left early")
    before = snapshot(club)

    error = refused(
        "game_over", 409, recording.round_record, game=game, by=alice, dollars=[10_000, 0]
    )

    assert error.message == "The game was voided."
    assert snapshot(club) == before


def test_a_recorded_game_outside_any_competition_takes_no_rounds_here(alice: User) -> None:
    rules = RuleSet.preset("2021", ending="quick", seats=2)
    game = game_services.recorded_game_create(by=alice, rules=rules, players=[alice, None])

    error = refused("not_found", 404, recording.round_record, game=game, by=alice, dollars=[0, 0])

    assert error.message == "This game belongs to no competition."


def test_someone_not_at_the_table_cannot_vote(club: Club, alice: User, carol: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    record = recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record
    before = snapshot(club)
    error = refused(
        "not_seated", 403, recording.round_vote, record=record, by=carol, verdict="confirm"
    )
    assert error.message == "Only the table's players or an organiser vote."
    assert snapshot(club) == before


def test_nobody_votes_twice_on_a_round(club: Club, alice: User, bob: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"])
    record = recording.round_record(game=game, by=alice, dollars=[10_000, 0, 0]).record
    error = refused(
        "already_voted", 409, recording.round_vote, record=record, by=alice, verdict="confirm"
    )
    assert error.message == "You have already voted on this round."
    recording.round_vote(record=record, by=bob, verdict="confirm")
    before = snapshot(club)
    refused(
        "already_voted",
        409,
        recording.round_vote,
        record=record,
        by=bob,
        verdict="dispute",
        reason="changed my mind",
    )
    assert snapshot(club) == before


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_dispute_must_say_why(club: Club, alice: User, bob: User, reason: str) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    record = recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record
    before = snapshot(club)
    error = refused(
        "reason_required",
        422,
        recording.round_vote,
        record=record,
        by=bob,
        verdict="dispute",
        reason=reason,
    )
    assert (error.message, error.details) == ("Say why the round is wrong.", {"field": "reason"})
    assert snapshot(club) == before


def test_a_verdict_is_confirm_or_dispute(club: Club, alice: User, bob: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    record = recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record
    error = refused("invalid", 422, recording.round_vote, record=record, by=bob, verdict="maybe")
    assert (error.message, error.details) == (
        "verdict must be confirm or dispute",
        {"field": "verdict"},
    )


def test_a_confirmation_needs_no_reason_and_records_none(
    club: Club, alice: User, bob: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    record = recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record

    recording.round_vote(record=record, by=bob, verdict="confirm")

    assert record.votes.get(voter=bob).reason == ""
    assert ChangeLog.objects.get(action="round_confirmed").reason == ""


# --- disputes -----------------------------------------------------------------------------


def test_a_dispute_freezes_the_next_entry_until_an_organiser_confirms(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    record = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record
    recording.round_vote(record=record, by=bob, verdict="dispute", reason="I had the Gold")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.DISPUTED
    assert record.votes.get(voter=bob).reason == "I had the Gold"
    change = ChangeLog.objects.get(action="round_disputed")
    assert (change.actor, change.subject, change.reason) == (
        bob,
        f"game {game.pk} round 1",
        "I had the Gold",
    )

    before = snapshot(club)
    error = refused(
        "round_disputed", 409, recording.round_record, game=game, by=alice, dollars=[10_000, 0]
    )
    assert error.message == "A disputed round must be settled first."
    assert snapshot(club) == before

    recording.round_vote(record=record, by=olga, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED
    assert recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record.round_number == 2


def test_a_dispute_freezes_the_next_entry_until_an_organiser_corrects(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    record = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record
    recording.round_vote(record=record, by=bob, verdict="dispute", reason="swap them")
    correction = recording.round_correct(
        game=game, round_number=1, by=olga, dollars=[200_000, 300_000], reason="recounted"
    )
    assert correction.status == ScoreRecord.Status.CONFIRMED
    assert recording.round_record(game=game, by=bob, dollars=[10_000, 0]).record.round_number == 2


def test_a_seated_organiser_confirms_as_a_player_and_settles_a_dispute_by_correcting(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    """olga plays at this table: her word counts as a player's, not as the organiser's."""
    olgas = services.competitor_add(competition=club.competition, by=olga, name="Olga", user=olga)
    game = recording.recorded_game_create(
        by=olga,
        competition=club.competition,
        competitors=[olgas, club.players["Alice"]],
        rules=CLASSIC_2,
        night=club.night,
    )
    record = recording.round_record(game=game, by=olga, dollars=[300_000, 200_000]).record
    assert record.status == ScoreRecord.Status.PENDING  # alice has not confirmed
    assert record.votes.get(voter=olga).as_organiser is False  # her entry is a player's
    recording.round_vote(record=record, by=alice, verdict="dispute", reason="too much")
    refused("already_voted", 409, recording.round_vote, record=record, by=olga, verdict="confirm")
    recording.round_correct(
        game=game, round_number=1, by=olga, dollars=[250_000, 200_000], reason="recounted"
    )
    assert recording.round_record(game=game, by=alice, dollars=[10_000, 0]).record.round_number == 2


def test_a_seated_organisers_vote_is_recorded_as_a_players(
    club: Club, olga: User, alice: User
) -> None:
    olgas = services.competitor_add(competition=club.competition, by=olga, name="Olga", user=olga)
    game = recording.recorded_game_create(
        by=olga,
        competition=club.competition,
        competitors=[olgas, club.players["Alice"]],
        rules=CLASSIC_2,
        night=club.night,
    )
    record = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record

    recording.round_vote(record=record, by=olga, verdict="confirm")

    vote = record.votes.get(voter=olga)
    assert (vote.verdict, vote.as_organiser) == ("confirm", False)
    change = ChangeLog.objects.get(action="round_confirmed")
    assert (change.actor, change.subject) == (olga, f"game {game.pk} round 1")


def test_an_organisers_dispute_freezes_a_round_rather_than_settling_it(
    club: Club, olga: User, staff: User, alice: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    record = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record
    recording.round_vote(record=record, by=olga, verdict="dispute", reason="photo disagrees")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.DISPUTED
    assert not Result.objects.filter(competition=club.competition).exists()
    recording.round_vote(record=record, by=staff, verdict="confirm")  # staff organise too
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED


def test_a_vote_on_a_superseded_record_is_refused(club: Club, olga: User, alice: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    old = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record
    recording.round_correct(
        game=game, round_number=1, by=olga, dollars=[300_000, 100_000], reason="typo"
    )
    error = refused(
        "record_superseded", 409, recording.round_vote, record=old, by=olga, verdict="confirm"
    )
    assert error.message == "A newer record replaced this one."


# --- corrections ------------------------------------------------------------------------------


def test_a_correction_appends_to_the_ledger_and_logs_who_when_why_before_and_after(
    club: Club, olga: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob", "Carol"], [300_000, 200_000, 100_000])
    first = ScoreRecord.objects.get(game=game)
    moment = dt.datetime(2030, 3, 4, 9, 30, tzinfo=dt.UTC)  # after the entry
    with time_machine.travel(moment, tick=False):
        correction = recording.round_correct(
            game=game,
            round_number=1,
            by=olga,
            dollars=[100_000, 200_000, 300_000],
            reason="read the sheet upside down",
        )
    assert ledger(game) == [
        (1, "enter", "confirmed", [300_000, 200_000, 100_000]),  # kept as it was
        (1, "correct", "confirmed", [100_000, 200_000, 300_000]),
    ]
    assert (correction.supersedes, correction.actor) == (first, olga)
    assert correction.reason == "read the sheet upside down"
    change = ChangeLog.objects.get(competition=club.competition, action="round_corrected")
    assert (change.actor, change.created_at) == (olga, moment)
    assert change.subject == f"game {game.pk} round 1"
    assert change.reason == "read the sheet upside down"
    assert change.before == [300_000, 200_000, 100_000]
    assert change.after == [100_000, 200_000, 300_000]
    game.refresh_from_db()
    assert game.winners == [2]
    current = Result.objects.filter(competition=club.competition, valid_to__isnull=True)
    assert {r.competitor.name: r.place for r in current} == {"Alice": 3, "Bob": 2, "Carol": 1}
    closed = Result.objects.filter(competition=club.competition, valid_to=moment)
    # Bob's result did not change: his row stays valid, only the changed ones are replaced
    assert {r.competitor.name: r.place for r in closed} == {"Alice": 1, "Carol": 3}
    assert current.get(competitor__name="Bob").valid_from < moment


def test_a_correction_is_checked_against_the_deck_and_the_ending(club: Club, olga: User) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [600_000, 300_000], rules=CLASSIC_2)
    before = (ledger(game), snapshot(club))
    refused(
        "impossible_dollars",
        422,
        recording.round_correct,
        game=game,
        round_number=1,
        by=olga,
        dollars=[601_000, 300_000],
        reason="typo",
    )
    recording.round_record(game=game, by=olga, dollars=[100_000, 100_000])
    recording.round_record(game=game, by=olga, dollars=[100_000, 100_000])
    before = (ledger(game), snapshot(club))
    # round 2 raised to $400,000 would end the game there, before round 3
    refused(
        "game_already_ended",
        422,
        recording.round_correct,
        game=game,
        round_number=2,
        by=olga,
        dollars=[400_000, 100_000],
        reason="typo",
    )
    assert (ledger(game), snapshot(club)) == before


def test_only_organisers_correct_and_always_with_a_reason(
    club: Club, olga: User, alice: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    before = snapshot(club)
    error = refused(
        "permission_denied",
        403,
        recording.round_correct,
        game=game,
        round_number=1,
        by=alice,
        dollars=[50_000, 100_000],
        reason="I won really",
    )
    assert error.message == "Only an organiser corrects a round."
    error = refused(
        "reason_required",
        422,
        recording.round_correct,
        game=game,
        round_number=1,
        by=olga,
        dollars=[50_000, 100_000],
        reason=" ",
    )
    assert (error.message, error.details) == ("Every correction says why.", {"field": "reason"})
    error = refused(
        "no_such_round",
        404,
        recording.round_correct,
        game=game,
        round_number=2,
        by=olga,
        dollars=[50_000, 100_000],
        reason="typo",
    )
    assert (error.message, error.details) == ("The game has rounds 1 to 1.", {"rounds": 1})
    refused(
        "no_such_round",
        404,
        recording.round_correct,
        game=game,
        round_number=0,
        by=olga,
        dollars=[50_000, 100_000],
        reason="typo",
    )
    assert snapshot(club) == before


def test_removing_the_last_round_reopens_the_game_and_keeps_the_removed_record(
    club: Club, olga: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    assert Result.objects.filter(valid_to__isnull=True).count() == 2
    recording.round_correct(game=game, round_number=1, by=olga, dollars=None, reason="wrong table")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert not Round.objects.filter(game=game).exists()
    assert not Result.objects.filter(valid_to__isnull=True).exists()
    assert ledger(game) == [
        (1, "enter", "confirmed", [100_000, 50_000]),
        (1, "void", "confirmed", [100_000, 50_000]),
    ]
    change = ChangeLog.objects.get(action="round_removed")
    assert (change.before, change.after, change.reason) == ([100_000, 50_000], None, "wrong table")
    # the table plays on: the next entry is round 1 again
    record = recording.round_record(game=game, by=olga, dollars=[50_000, 100_000]).record
    assert record.round_number == 1
    game.refresh_from_db()
    assert game.winners == [1]


def test_only_the_last_round_can_be_removed(club: Club, olga: User) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000], rules=CLASSIC_2)
    recording.round_record(game=game, by=olga, dollars=[100_000, 50_000])
    error = refused(
        "not_last_round",
        422,
        recording.round_correct,
        game=game,
        round_number=1,
        by=olga,
        dollars=None,
        reason="oops",
    )
    assert error.message == "Only the last round can be removed; correct others."


def test_correcting_an_earlier_round_replaces_that_round_only(club: Club, olga: User) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000], rules=CLASSIC_2)
    recording.round_record(game=game, by=olga, dollars=[200_000, 20_000])

    correction = recording.round_correct(
        game=game, round_number=1, by=olga, dollars=[90_000, 60_000], reason="misread"
    )

    assert correction.supersedes is not None
    assert (correction.supersedes.round_number, correction.supersedes.dollars) == (
        1,
        [100_000, 50_000],
    )
    change = ChangeLog.objects.get(action="round_corrected")
    assert (change.before, change.after) == ([100_000, 50_000], [90_000, 60_000])
    scores = RoundScore.objects.filter(round__game=game).order_by("round__number", "seat")
    assert list(scores.values_list("dollars", flat=True)) == [90_000, 60_000, 200_000, 20_000]


def test_removing_the_last_of_several_rounds_keeps_the_others_scores(
    club: Club, olga: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000], rules=CLASSIC_2)
    recording.round_record(game=game, by=olga, dollars=[200_000, 20_000])
    recording.round_record(game=game, by=olga, dollars=[30_000, 40_000])

    recording.round_correct(game=game, round_number=3, by=olga, dollars=None, reason="no")

    game.refresh_from_db()
    assert game.round_number == 3  # rounds 1 and 2 stand: the table plays round 3 again
    assert list(Round.objects.filter(game=game).values_list("number", flat=True)) == [1, 2]


def test_a_correction_the_deck_cannot_hold_is_refused_in_the_entrys_words(
    club: Club, olga: User
) -> None:
    jars = QUICK.with_options(advanced={"penny_jar": True})
    game = settled_game(club, olga, ["Alice", "Bob", "Carol"], [7_000, 10_000, 0], rules=jars)
    entered = refused(
        "not_enough_cards", 422, recording.round_record, game=recorded_game(
            club, olga, ["Alice", "Bob", "Carol"], rules=jars), by=olga,
        dollars=[7_000, 7_000, 6_000],
    )  # fmt: skip

    corrected = refused(
        "not_enough_cards", 422, recording.round_correct, game=game, round_number=1, by=olga,
        dollars=[7_000, 7_000, 6_000], reason="typo",
    )  # fmt: skip

    assert corrected.message == entered.message


# --- idempotency ---------------------------------------------------------------------------------


def test_a_retried_entry_with_the_same_key_returns_the_first_record_and_writes_nothing(
    club: Club, alice: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    first = recording.round_record(game=game, by=alice, dollars=[100_000, 0], key="sheet-1-r1")
    before = snapshot(club)
    again = recording.round_record(game=game, by=alice, dollars=[100_000, 0], key="sheet-1-r1")
    assert again.record.pk == first.record.pk
    assert (first.replayed, again.replayed) == (False, True)
    assert snapshot(club) == before
    second = recording.round_record(game=game, by=alice, dollars=[0, 10_000], key="sheet-1-r2")
    assert (second.record.round_number, second.replayed) == (2, False)


def test_another_players_key_is_refused(club: Club, alice: User, bob: User) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    recording.round_record(game=game, by=alice, dollars=[100_000, 0], key="k")
    before = snapshot(club)
    error = refused(
        "idempotency_key_reused",
        409,
        recording.round_record,
        game=game,
        by=bob,
        dollars=[100_000, 0],
        key="k",
    )
    assert error.message == "That key belongs to another entry."
    assert snapshot(club) == before


def test_a_key_belongs_to_its_game_the_same_key_at_another_table_enters_that_tables_round(
    club: Club, alice: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    other = recorded_game(club, alice, ["Alice", "Carol"], rules=CLASSIC_2)
    first = recording.round_record(game=game, by=alice, dollars=[100_000, 0], key="round-1")

    entry = recording.round_record(game=other, by=alice, dollars=[0, 50_000], key="round-1")

    assert (entry.replayed, entry.record.game_id) == (False, other.pk)
    assert entry.record.pk != first.record.pk
    assert ledger(other) == [(1, "enter", "pending", [0, 50_000])]


# --- guests ------------------------------------------------------------------------------------


def test_a_guest_is_linked_to_an_account_and_keeps_their_results(
    club: Club, olga: User, staff: User
) -> None:
    settled_game(club, olga, ["Dora", "Alice"], [100_000, 50_000])
    dora = club.players["Dora"]
    account = UserFactory.create(username="dora")
    linked = services.competitor_link(competitor=dora, by=olga, user=account)
    assert linked.user == account
    assert linked.pk == dora.pk
    row = selectors.standings(club.competition)[0]
    assert (row["name"], row["competitor"], row["wins"]) == ("Dora", dora.pk, 1)
    change = ChangeLog.objects.get(action="guest_linked")
    assert (change.actor, change.subject, change.after) == (olga, "Dora", {"user": "dora"})
    refused("already_linked", 409, services.competitor_link, competitor=dora, by=olga, user=staff)


def test_a_guest_cannot_be_linked_to_an_account_already_entered(
    club: Club, olga: User, alice: User
) -> None:
    refused(
        "already_entered",
        409,
        services.competitor_link,
        competitor=club.players["Dora"],
        by=olga,
        user=alice,
    )
    assert Competitor.objects.get(pk=club.players["Dora"].pk).user is None


def test_only_an_organiser_links_a_guest(club: Club, alice: User) -> None:
    account = UserFactory.create(username="dora")
    refused(
        "permission_denied",
        403,
        services.competitor_link,
        competitor=club.players["Dora"],
        by=alice,
        user=account,
    )
    assert not ChangeLog.objects.filter(action="guest_linked").exists()


def test_an_entry_for_a_round_already_entered_elsewhere_is_refused_not_shifted(
    club: Club, alice: User, bob: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    recording.round_record(game=game, by=alice, dollars=[100_000, 50_000], number=1)
    before = snapshot(club)

    error = refused(
        "stale_round", 409, recording.round_record,
        game=game, by=bob, dollars=[60_000, 40_000], number=1,
    )  # fmt: skip

    assert error.details == {"next_round": 2}
    assert error.message == (
        "The next round is round 2: round 1 was entered or removed meanwhile. "
        "Look at the sheet again before entering."
    )
    assert snapshot(club) == before
    recording.round_record(game=game, by=bob, dollars=[60_000, 40_000], number=2)
    assert ledger(game)[-1][0] == 2


def test_an_entry_for_a_round_ahead_of_the_next_is_refused_and_writes_nothing(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    """An organiser removes round 2 while alice's phone still shows "Record round 3": her
    entry is not saved as round 2 (issue 32)."""
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    for number in (1, 2):
        recording.round_record(game=game, by=olga, dollars=[100_000, 50_000], number=number)
    recording.round_correct(game=game, round_number=2, by=olga, dollars=None, reason="wrong")
    before = snapshot(club)
    ledger_before = ledger(game)

    error = refused(
        "stale_round", 409, recording.round_record,
        game=game, by=alice, dollars=[60_000, 40_000], number=3,
    )  # fmt: skip

    assert error.details == {"next_round": 2}
    assert snapshot(club) == before
    assert ledger(game) == ledger_before
    assert (
        recording.round_record(
            game=game, by=alice, dollars=[60_000, 40_000], number=2
        ).record.round_number
        == 2
    )


def test_a_dispute_on_an_earlier_round_freezes_the_next_entry(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    """Round 1 is disputed while round 2 waits for its confirmation: round 3 must wait for
    round 1 to be settled, not only for the last round (issue 32)."""
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    first = recording.round_record(game=game, by=alice, dollars=[300_000, 200_000]).record
    second = recording.round_record(game=game, by=alice, dollars=[100_000, 0]).record
    recording.round_vote(record=first, by=bob, verdict="dispute", reason="I had the Gold")
    second.refresh_from_db()
    assert second.status == ScoreRecord.Status.PENDING
    before = snapshot(club)

    refused("round_disputed", 409, recording.round_record, game=game, by=alice, dollars=[0, 10_000])
    refused(
        "round_disputed", 409, recording.round_record,
        game=game, by=alice, dollars=[0, 10_000], number=3,
    )  # fmt: skip

    assert snapshot(club) == before
    recording.round_vote(record=first, by=olga, verdict="confirm")
    entry = recording.round_record(game=game, by=alice, dollars=[0, 10_000])
    assert entry.record.round_number == 3


# --- substitutes: who enters rounds, whose confirmation is waited for -------------------------


def status_of(record: ScoreRecord) -> str:
    record.refresh_from_db()
    return record.status


def test_a_substitute_with_an_account_confirms_and_enters_for_the_seat_they_took(
    club: Club, olga: User, alice: User, carol: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    first = recording.round_record(game=game, by=alice, dollars=[100_000, 50_000]).record

    carols = Member.objects.get(name="Carol")
    discipline.substitute_seat(game=game, by=olga, seat=1, member=carols, reason="Bob left")

    assert status_of(first) == ScoreRecord.Status.PENDING  # now carol's to confirm, not bob's
    recording.round_vote(record=first, by=carol, verdict="confirm")
    assert status_of(first) == ScoreRecord.Status.CONFIRMED
    second = recording.round_record(game=game, by=carol, dollars=[50_000, 100_000]).record
    assert (second.round_number, second.status) == (2, ScoreRecord.Status.PENDING)  # alice's turn
    recording.round_vote(record=second, by=alice, verdict="confirm")
    assert status_of(second) == ScoreRecord.Status.CONFIRMED


def test_a_guest_substitute_leaves_a_round_to_the_accounts_still_seated_and_seats_nobody(
    club: Club, olga: User, alice: User, carol: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    first = recording.round_record(game=game, by=alice, dollars=[100_000, 50_000]).record

    discipline.substitute_seat(game=game, by=olga, seat=1, name="Zed", reason="Bob left")

    assert status_of(first) == ScoreRecord.Status.CONFIRMED  # bob held it up, and left
    before = snapshot(club)
    refused("not_seated", 403, recording.round_record, game=game, by=carol, dollars=[0, 10_000])
    assert snapshot(club) == before


def test_a_substitute_for_a_guest_is_waited_for_at_that_table_only(
    club: Club, olga: User, alice: User, carol: User
) -> None:
    game = recorded_game(club, alice, ["Alice", "Dora"], rules=CLASSIC_2)
    carols = Member.objects.get(name="Carol")
    discipline.substitute_seat(game=game, by=olga, seat=1, member=carols, reason="Dora left")

    record = recording.round_record(game=game, by=alice, dollars=[100_000, 50_000]).record

    assert status_of(record) == ScoreRecord.Status.PENDING  # Dora had no account; carol has
    recording.round_vote(record=record, by=carol, verdict="confirm")
    assert status_of(record) == ScoreRecord.Status.CONFIRMED
    elsewhere = recorded_game(club, alice, ["Alice", "Bob"], rules=CLASSIC_2)
    refused(
        "not_seated", 403, recording.round_record, game=elsewhere, by=carol, dollars=[0, 10_000]
    )
