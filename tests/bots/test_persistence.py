"""bots.persistence, the match seam: every function down both of its paths.

Each test runs twice on PostgreSQL (``seam_path``): down the hand-written SQL, and down
the ORM path SQLite takes for ``make run``. The expected rows are worked out here from
the base tables through the ORM, so both paths are held to the same rows.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from accounts.models import User
from bots import leases, persistence, ratings, runner, services
from bots.models import BotVersion, Lease, Match, MatchEntry, MatchGame, RatingChange, SeatControl
from bots.persistence import games as game_rows
from bots.persistence import leases as lease_rows
from bots.persistence import locks
from bots.persistence import matches as match_rows
from bots.persistence.games import Seating
from bots.persistence.matches import EntryResult, Results
from bots.validation import builtin_versions
from games import services as game_services
from games.models import Game, Seat
from tests.bots.bot_servers import api_client_version, builtin_version
from tests.bots.checks import (
    advisory_held_elsewhere,
    assert_finished_once,
    held_elsewhere,
    quick,
)
from tests.bots.conftest import ORM

SEED = 31
NAMESPACE = 0x74657374  # "test": no lease of the platform's


def columns(instance: Model) -> dict[str, Any]:
    """Every column of a row as loaded."""
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def stored(match: Match) -> dict[str, Any]:
    return columns(Match.objects.get(pk=match.pk))


@pytest.fixture
def versions(db: None, alice: User) -> list[BotVersion]:
    """Four built-ins of three owners: a ladder table played wholly in process."""
    return [*builtin_versions(), builtin_version(alice, "alices-greedy", "greedy")]


@pytest.fixture
def match(versions: list[BotVersion]) -> Match:
    """A scheduled ladder match: four games, one per seat rotation."""
    return services.match_create(versions=versions, rules=quick(4), seed=SEED)


@pytest.fixture
def played(match: Match) -> Match:
    """``match`` with every game played (down the seam's path), not yet finished, and one
    seat of its last game put on autopilot, so its version counts as forfeited."""
    for game in Game.objects.filter(match_game__match=match):
        runner.run_game(match, game)
    last = SeatControl.objects.filter(seat__game__match_game__match=match).order_by("pk").last()
    assert last is not None
    SeatControl.objects.filter(pk=last.pk).update(autopilot_since=timezone.now())
    return match


# --- claiming -------------------------------------------------------------------------------


def test_a_claim_marks_the_match_running_counts_an_attempt_and_returns_its_row(
    seam_path: str, match: Match
) -> None:
    now = timezone.now()
    claimed = match_rows.match_claim(match.pk, attempt=True, now=now)
    assert claimed is not None
    assert (claimed.status, claimed.attempts, claimed.started_at) == ("running", 1, now)
    assert columns(claimed) == stored(match)


def test_a_claim_after_an_outage_counts_no_attempt_and_keeps_the_first_start(
    seam_path: str, match: Match
) -> None:
    first = timezone.now()
    match_rows.match_claim(match.pk, attempt=True, now=first)
    again = match_rows.match_claim(match.pk, attempt=False, now=first + timedelta(minutes=5))
    assert again is not None
    assert (again.attempts, again.started_at) == (1, first)
    assert columns(again) == stored(match)


@pytest.mark.parametrize("status", persistence.ENDED)
def test_an_ended_match_is_not_claimed_and_is_left_as_it_was(
    seam_path: str, match: Match, status: str
) -> None:
    Match.objects.filter(pk=match.pk).update(status=status)
    before = stored(match)
    assert match_rows.match_claim(match.pk, attempt=True, now=timezone.now()) is None
    assert stored(match) == before


# --- results, read locked -------------------------------------------------------------------


def results_from_seats(match: Match) -> Results:
    """Each entry's places, dollars and forfeit over the match's games, read seat by seat."""
    entries = []
    for entry in match.entries.select_related("version").order_by("position"):
        seats = Seat.objects.filter(game__match_game__match=match, control__version=entry.version)
        standing = ratings.Standing(
            key=entry.version_id,
            places=sum(s.place or 0 for s in seats),
            dollars=sum(s.tally or 0 for s in seats),
            forfeited=seats.filter(control__autopilot_since__isnull=False).exists(),
        )
        rating = (entry.version.mu, entry.version.sigma)
        entries.append(EntryResult(entry.pk, standing, rating))
    return Results(entries, match.match_games.count())


@pytest.mark.parametrize("lock_versions", [True, False])
def test_the_locked_read_gives_the_match_and_each_entrys_totals_over_its_games(
    seam_path: str, played: Match, lock_versions: bool
) -> None:
    with transaction.atomic():
        locked, results = match_rows.match_locked_with_results(
            played.pk, lock_versions=lock_versions
        )
    assert columns(locked) == stored(played)
    assert results == results_from_seats(played)
    assert results.games == 4
    assert [e.standing.forfeited for e in results.entries].count(True) == 1


def test_the_locked_read_of_an_unknown_match_raises_does_not_exist(
    seam_path: str, db: None
) -> None:
    with pytest.raises(Match.DoesNotExist), transaction.atomic():
        match_rows.match_locked_with_results(0, lock_versions=True)


# --- writing a finished match ------------------------------------------------------------------


def finish(match_id: int, *, rated: bool) -> tuple[Match, Results, list[ratings.Change]]:
    """Write a match finished with places in entry order and, if ``rated``, made-up changes."""
    with transaction.atomic():
        match, results = match_rows.match_locked_with_results(match_id, lock_versions=rated)
        places = {e.standing.key: n for n, e in enumerate(results.entries, start=1)}
        changes = [
            ratings.Change(
                key=e.standing.key,
                place=places[e.standing.key],
                expected_place=2.5,
                mu_before=e.rating[0],
                sigma_before=e.rating[1],
                mu_after=20.0 + n,
                sigma_after=5.0 + n / 10,
            )
            for n, e in enumerate(results.entries)
            if rated
        ]
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.result = {"places": {str(k): v for k, v in places.items()}}
        match.rated_at = match.finished_at if rated else None
        match_rows.match_finish_write(match, results.entries, places, changes, results.games)
    return match, results, changes


def test_a_rated_finish_writes_places_new_ratings_their_explanations_and_the_match(
    seam_path: str, played: Match
) -> None:
    match, results, changes = finish(played.pk, rated=True)
    entries = MatchEntry.objects.filter(match=match).order_by("position")
    assert list(entries.values_list("pk", "place", "dollars", "forfeited")) == [
        (e.entry_id, n, e.standing.dollars, e.standing.forfeited)
        for n, e in enumerate(results.entries, start=1)
    ]
    versions = BotVersion.objects.filter(pk__in=[c.key for c in changes])
    assert sorted(versions.values_list("pk", "mu", "sigma", "games_played", "matches_played")) == [
        (c.key, c.mu_after, c.sigma_after, 4, 1) for c in sorted(changes, key=lambda c: c.key)
    ]
    written = RatingChange.objects.filter(match=match).order_by("version_id")
    finished = match.finished_at  # the changes are dated with the match
    assert list(written.values_list(*RATING_CHANGE_COLUMNS)) == [
        (c.key, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after, 2.5, c.place, finished)
        for c in sorted(changes, key=lambda c: c.key)
    ]
    assert stored(match) == columns(match)


RATING_CHANGE_COLUMNS = (
    "version_id", "mu_before", "sigma_before", "mu_after", "sigma_after", "expected_place",
    "actual_place", "created_at",
)  # fmt: skip


def test_an_unrated_finish_writes_places_and_the_match_and_leaves_ratings_alone(
    seam_path: str, played: Match, versions: list[BotVersion]
) -> None:
    ratings_before = sorted(BotVersion.objects.values_list("pk", "mu", "sigma", "games_played"))
    match, _, _ = finish(played.pk, rated=False)
    entries = MatchEntry.objects.filter(match=match).order_by("position")
    assert list(entries.values_list("place", flat=True)) == [1, 2, 3, 4]
    assert not RatingChange.objects.filter(match=match).exists()
    assert sorted(BotVersion.objects.values_list("pk", "mu", "sigma", "games_played")) == (
        ratings_before
    )
    assert stored(match) == columns(match)


def test_a_whole_match_is_played_finished_and_rated_once_down_either_path(
    seam_path: str, match: Match
) -> None:
    runner.run_match(match)
    services.match_finish(match=match)  # a rerun changes nothing
    assert_finished_once(match)
    for entry in match.entries.select_related("version"):
        change = entry.version.rating_changes.get(match=match)
        assert (change.actual_place, change.mu_after) == (entry.place, entry.version.mu)
        assert (entry.version.games_played, entry.version.matches_played) == (4, 1)
    places = [e.place for e in match.entries.order_by("place")]
    assert sorted(match.result["places"].values()) == places


# --- games and seatings -----------------------------------------------------------------------


def test_a_matchs_games_come_in_rotation_order_each_with_its_snapshot(
    seam_path: str, match: Match, django_assert_num_queries: Any
) -> None:
    games = game_rows.match_games(match.pk)
    order = MatchGame.objects.filter(match=match).order_by("rotation")
    assert [g.pk for g in games] == list(order.values_list("game_id", flat=True))
    assert [columns(g) for g in games] == [columns(Game.objects.get(pk=g.pk)) for g in games]
    with django_assert_num_queries(0):  # read with the games
        snapshots = [g.snapshot for g in games]
    assert [s.game_id for s in snapshots] == [g.pk for g in games]


def test_seatings_name_each_seats_control_bot_kind_strategy_and_autopilot(
    seam_path: str, alice: User, bob: User
) -> None:
    versions = [*builtin_versions()[:2], api_client_version(alice, "alices-client")]
    versions.append(builtin_version(bob, "bobs-random", "random"))
    match = services.match_create(versions=versions, rules=quick(4), seed=SEED)
    controls = SeatControl.objects.filter(seat__game__match_game__match=match)
    SeatControl.objects.filter(pk=controls.order_by("pk")[0].pk).update(
        autopilot_since=timezone.now()
    )
    expected: dict[int, dict[int, Seating]] = {}
    for c in controls.select_related("seat", "version__bot"):
        autopilot = c.autopilot_since is not None
        seating = Seating(c.pk, autopilot, c.version.bot.kind, c.version.strategy)
        expected.setdefault(c.seat.game_id, {})[c.seat.number] = seating
    assert game_rows.match_seatings(match.pk) == expected
    for game_id, seats in expected.items():
        assert game_rows.game_seatings(game_id) == seats
    kinds = {s.kind: s.strategy for seats in expected.values() for s in seats.values()}
    assert kinds == {"builtin": kinds["builtin"], "api_client": ""}
    assert sum(s.autopilot for seats in expected.values() for s in seats.values()) == 1


def test_a_game_of_no_match_has_no_seatings(seam_path: str, alice: User, bob: User) -> None:
    game = game_services.game_create(by=alice, rules=quick(2))
    assert game_rows.game_seatings(game.pk) == {}


# --- leases and advisory locks ---------------------------------------------------------------


def test_a_lease_is_taken_once_renewed_by_its_token_and_taken_over_once_run_out(
    db: None,
) -> None:
    now, ttl = timezone.now(), timedelta(seconds=30)

    first = lease_rows.take(NAMESPACE, 7, "one", now, ttl)
    refused = lease_rows.take(NAMESPACE, 7, "two", now + timedelta(seconds=10), ttl)
    renewed = lease_rows.renew(NAMESPACE, 7, 1, now + timedelta(seconds=20), ttl)
    still_held = lease_rows.take(NAMESPACE, 7, "two", now + timedelta(seconds=40), ttl)
    taken_over = lease_rows.take(NAMESPACE, 7, "two", now + timedelta(seconds=60), ttl)

    assert (first, refused, renewed, still_held, taken_over) == (1, None, True, None, 2)
    assert not lease_rows.renew(NAMESPACE, 7, 1, now + timedelta(seconds=61), ttl)  # fenced
    with transaction.atomic():
        assert lease_rows.current(NAMESPACE, 7, 2)
        assert not lease_rows.current(NAMESPACE, 7, 1)


def test_a_lease_that_ran_out_or_was_let_go_is_taken_in_one_statement(
    db: None, django_assert_num_queries: Any
) -> None:
    now, ttl = timezone.now(), timedelta(seconds=30)
    lease_rows.take(NAMESPACE, 10, "one", now, ttl)
    lease_rows.release(NAMESPACE, 10, 1, now + timedelta(seconds=1))

    with django_assert_num_queries(1):  # a bot's turn takes one each move: issue 25
        let_go = lease_rows.take(NAMESPACE, 10, "two", now + timedelta(seconds=2), ttl)
    with django_assert_num_queries(1):
        ran_out = lease_rows.take(NAMESPACE, 10, "three", now + timedelta(seconds=40), ttl)

    assert (let_go, ran_out) == (2, 3)
    assert Lease.objects.get(namespace=NAMESPACE, key=10).owner == "three"
    assert lease_rows.take(NAMESPACE, 10, "four", now + timedelta(seconds=41), ttl) is None


def test_a_later_try_of_a_run_takes_its_lease_over_and_a_second_copy_does_not() -> None:
    holder = "task-1#0@host:100"

    assert lease_rows.succeeds("task-1#1@host:200", holder)  # the retry, anywhere
    assert not lease_rows.succeeds("task-1#0@host:200", holder)  # delivered twice
    assert not lease_rows.succeeds("task-2#1@host:100", holder)  # another run
    assert lease_rows.succeeds(holder, holder)


def test_a_lease_held_by_another_run_is_refused_until_it_lets_go(transactional_db: None) -> None:
    # committed statements: a refused take must not keep the other run's row locked
    with held_elsewhere(NAMESPACE, 8), leases.lease(NAMESPACE, 8) as held:
        assert held is None
    with leases.lease(NAMESPACE, 8) as held:
        assert held is not None
        assert not leases.lease_free(NAMESPACE, 8)
    assert leases.lease_free(NAMESPACE, 8)


def test_a_run_whose_lease_was_taken_over_fails_its_check(db: None) -> None:
    with leases.lease(NAMESPACE, 9) as held:
        assert held is not None
        held.check()  # still its own
        lease_rows.bump(NAMESPACE, 9)  # another run took it over

        with pytest.raises(leases.LeaseLost), transaction.atomic():
            held.check()


def test_a_transaction_lock_held_elsewhere_is_refused_on_postgresql_and_granted_without_it(
    seam_path: str, db: None
) -> None:
    with advisory_held_elsewhere(NAMESPACE, 0), transaction.atomic():
        assert locks.transaction_lock_try(NAMESPACE) is (seam_path == ORM)
    with transaction.atomic():
        assert locks.transaction_lock_try(NAMESPACE)
        locks.transaction_lock_wait(NAMESPACE)  # this transaction holds it: no wait
