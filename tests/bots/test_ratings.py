"""Ratings: how a match ranks its entries, what OpenSkill makes of it, and that it lands
exactly once, also when two matches sharing a version finish at the same moment."""

from __future__ import annotations

import itertools
import threading
from dataclasses import replace

import pytest
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from bots import ratings, runner, services
from bots.models import DEFAULT_MU, DEFAULT_SIGMA, BotVersion, Match, RatingChange
from bots.ratings import Standing
from bots.validation import builtin_versions
from tests.bots.checks import quick

standings_st = st.lists(
    st.builds(
        Standing,
        key=st.just(0),
        places=st.integers(4, 12),
        dollars=st.integers(0, 5) | st.integers(0, 3_000_000),
        forfeited=st.booleans(),
    ),
    min_size=2,
    max_size=6,
).map(lambda rows: [replace(s, key=i) for i, s in enumerate(rows)])

ratings_st = st.lists(
    st.tuples(st.floats(0, 50), st.floats(0.5, DEFAULT_SIGMA)), min_size=2, max_size=6
)


def order(s: Standing) -> tuple[bool, int, int]:
    """Better first: not forfeited, fewer summed places, more dollars."""
    return (s.forfeited, s.places, -s.dollars)


# --- ranks --------------------------------------------------------------------------------


def test_ranks_go_by_summed_places_then_dollars() -> None:
    places = ratings.ranks(
        [
            Standing(key=1, places=9, dollars=900, forfeited=False),
            Standing(key=2, places=6, dollars=100, forfeited=False),
            Standing(key=3, places=9, dollars=950, forfeited=False),
        ]
    )
    assert places == {2: 1, 3: 2, 1: 3}


def test_a_forfeited_entry_ranks_last_whatever_it_scored() -> None:
    places = ratings.ranks(
        [
            Standing(key=1, places=4, dollars=4_000_000, forfeited=True),
            Standing(key=2, places=12, dollars=0, forfeited=False),
        ]
    )
    assert places == {2: 1, 1: 2}


def test_tied_entries_share_a_place_and_the_next_place_is_skipped() -> None:
    places = ratings.ranks(
        [
            Standing(key=1, places=5, dollars=10, forfeited=False),
            Standing(key=2, places=5, dollars=10, forfeited=False),
            Standing(key=3, places=8, dollars=10, forfeited=False),
        ]
    )
    assert places == {1: 1, 2: 1, 3: 3}


@given(standings_st)
def test_a_place_is_one_more_than_the_number_of_strictly_better_entries(
    standings: list[Standing],
) -> None:
    places = ratings.ranks(standings)
    assert sorted(places) == [s.key for s in standings]
    for s in standings:
        better = sum(order(o) < order(s) for o in standings)
        assert places[s.key] == 1 + better
    for a in standings:
        for b in standings:
            if a.forfeited and not b.forfeited:
                assert places[a.key] > places[b.key]


# --- expected places and rating changes ---------------------------------------------------


@given(ratings_st)
def test_expected_places_lie_between_first_and_last_and_sum_to_n_n_plus_1_over_2(
    before: list[tuple[float, float]],
) -> None:
    expected = ratings.expected_places(before)
    n = len(before)
    assert all(1.0 <= e <= n for e in expected)
    assert sum(expected) == pytest.approx(n * (n + 1) / 2)


def test_the_stronger_rating_is_expected_to_finish_higher() -> None:
    strong, weak = ratings.expected_places([(30.0, 3.0), (20.0, 3.0)])
    assert strong < 1.5 < weak


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_winner_rises_the_loser_falls_and_everyone_grows_more_certain(n: int) -> None:
    standings = [Standing(key=k, places=k + 1, dollars=0, forfeited=False) for k in range(n)]
    changes = ratings.rate(standings, dict.fromkeys(range(n), (DEFAULT_MU, DEFAULT_SIGMA)))
    by_place = sorted(changes, key=lambda c: c.place)
    assert [c.place for c in by_place] == list(range(1, n + 1))
    assert by_place[0].mu_after > DEFAULT_MU
    assert by_place[-1].mu_after < DEFAULT_MU
    assert [c.mu_after for c in by_place] == sorted((c.mu_after for c in by_place), reverse=True)
    assert all(c.sigma_after < c.sigma_before for c in changes)
    assert all(c.expected_place == pytest.approx((n + 1) / 2) for c in changes)


def test_an_upset_moves_ratings_more_than_an_expected_result() -> None:
    prior = {1: (30.0, 2.0), 2: (20.0, 2.0)}
    expected = ratings.rate(
        [Standing(1, 1, 0, False), Standing(2, 2, 0, False)], prior
    )  # the favourite wins
    upset = ratings.rate([Standing(1, 2, 0, False), Standing(2, 1, 0, False)], prior)
    gain = {c.key: c.mu_after - c.mu_before for c in expected}
    swing = {c.key: c.mu_after - c.mu_before for c in upset}
    assert abs(swing[2]) > abs(gain[2])
    assert swing[2] > 0 > swing[1]


def test_a_rating_is_provisional_while_uncertain_or_young() -> None:
    assert ratings.provisional(DEFAULT_SIGMA, 100)
    assert ratings.provisional(2.0, ratings.PROVISIONAL_GAMES - 1)
    assert not ratings.provisional(2.0, ratings.PROVISIONAL_GAMES)


# --- in the database: exactly once --------------------------------------------------------


def played(versions: list[BotVersion]) -> Match:
    """A ladder match of ``versions`` with every game played, not yet finished or rated."""
    match = services.match_create(versions=versions, rules=quick(len(versions)))
    for mg in match.match_games.select_related("game"):
        runner.run_game(match, mg.game)
    return match


def test_rating_a_match_twice_applies_its_changes_once(db: None) -> None:
    versions = builtin_versions()
    match = played(versions)
    services.match_finish(match=match)
    once = list(BotVersion.objects.filter(pk__in=[v.pk for v in versions]).values())
    services.match_finish(match=match)
    assert RatingChange.objects.filter(match=match).count() == 3
    assert list(BotVersion.objects.filter(pk__in=[v.pk for v in versions]).values()) == once
    for version in versions:
        version.refresh_from_db()
        assert version.matches_played == 1
        assert version.games_played == 3


def test_each_rating_change_records_the_rating_before_and_after_and_the_places(
    db: None,
) -> None:
    versions = builtin_versions()
    match = services.match_finish(match=played(versions))
    for change in RatingChange.objects.filter(match=match).select_related("version"):
        assert change.mu_before == DEFAULT_MU
        assert change.sigma_before == DEFAULT_SIGMA
        assert (change.mu_after, change.sigma_after) == (change.version.mu, change.version.sigma)
        assert change.actual_place == match.entries.get(version=change.version).place
        assert change.expected_place == pytest.approx(2.0)  # three equal priors


ROUNDS = 4


def finish_together(*matches: Match) -> None:
    """Finish the matches on threads of their own (own connections), released at once."""
    barrier = threading.Barrier(len(matches))
    errors: list[BaseException] = []

    def finish(match: Match) -> None:
        try:
            barrier.wait(timeout=10)
            services.match_finish(match=match)
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors


@pytest.mark.usefixtures("transactional_db", "seam_path")  # the version locks on both paths
def test_two_matches_finishing_at_once_both_land_their_updates_on_a_shared_version() -> None:
    shark, greedy, random_ = builtin_versions()
    for _ in range(ROUNDS):
        first, second = played([shark, greedy]), played([shark, random_])
        finish_together(first, second)

        # one update was applied on top of the other, never beside it
        changes = list(RatingChange.objects.filter(version=shark).order_by("-pk")[:2])
        later, earlier = changes
        assert {later.match_id, earlier.match_id} == {first.pk, second.pk}
        assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
        shark.refresh_from_db()
        assert (shark.mu, shark.sigma) == (later.mu_after, later.sigma_after)

    shark.refresh_from_db()
    assert shark.matches_played == 2 * ROUNDS
    assert shark.games_played == 2 * 2 * ROUNDS
    chain = list(RatingChange.objects.filter(version=shark).order_by("pk"))
    assert chain[0].mu_before == DEFAULT_MU
    for before, after in itertools.pairwise(chain):
        assert after.mu_before == before.mu_after
