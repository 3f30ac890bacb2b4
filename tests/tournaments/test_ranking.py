"""Ordering standings (tournaments.ranking, pure): each tie-break, their order, the lot.

Entrants are built as plain ``Totals``; head-to-head and strength of schedule come from a
``Detail`` that answers from dictionaries and records what it was asked, so the tests
can also show those game-by-game criteria are computed only for entrants still tied.
(The database-backed ``Detail`` is checked against hand-computed leagues in
test_standings.py.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import ranking
from tournaments.ranking import Totals

SEED = "a1b2c3"


class FakeDetail(ranking.Detail):
    """Head-to-head and strength of schedule from fixed values; remembers each question."""

    def __init__(
        self, h2h: dict[int, float] | None = None, sos: dict[int, float] | None = None
    ) -> None:
        self.h2h = h2h or {}
        self.sos = sos or {}
        self.asked: list[tuple[str, tuple[int, ...]]] = []

    def head_to_head(self, entrants: Sequence[int]) -> dict[int, float]:
        self.asked.append(("head_to_head", tuple(sorted(entrants))))
        return {e: self.h2h.get(e, 0.0) for e in entrants}

    def strength_of_schedule(self, entrants: Sequence[int]) -> dict[int, float]:
        self.asked.append(("sos", tuple(sorted(entrants))))
        return {e: self.sos.get(e, 0.0) for e in entrants}


def totals(entrant: int, **values: float) -> Totals:
    """An entrant with four games and middling results, except for ``values``."""
    base = Totals(
        entrant=entrant,
        games=4,
        points=2.0,
        placement_sum=2.0,
        dsi_sum=4.0,
        rounds_won=3,
        wins=1,
        best_dsi=1.5,
        dollars=1_000_000,
    )
    return replace(base, **values)  # type: ignore[arg-type]


def names(ranked: list[tuple[int, Totals, list[str]]]) -> list[int]:
    return [t.entrant for _, t, _ in ranked]


# The value that makes entrant 1 better than entrant 2 on each criterion alone.
BETTER: dict[str, tuple[dict[str, float], dict[str, float], dict[int, float], dict[int, float]]]
BETTER = {
    "points": ({"points": 3.0}, {}, {}, {}),
    "placement": ({"placement_sum": 3.0}, {}, {}, {}),
    "dsi": ({"dsi_sum": 5.0}, {}, {}, {}),
    "rounds_won": ({"rounds_won": 4}, {}, {}, {}),
    "wins": ({"wins": 2}, {}, {}, {}),
    "best_dsi": ({"best_dsi": 2.5}, {}, {}, {}),
    "head_to_head": ({}, {}, {1: 1.0, 2: 0.0}, {}),
    "sos": ({}, {}, {}, {1: 0.7, 2: 0.4}),
}


@pytest.mark.parametrize("criterion", ranking.CRITERIA)
def test_each_criterion_alone_puts_the_better_entrant_first_and_names_itself(
    criterion: str,
) -> None:
    first, second, h2h, sos = BETTER[criterion]
    a, b = totals(1, **first), totals(2, **second)
    for given_order in ([b, a], [a, b]):
        ranked = ranking.rank(given_order, [criterion], FakeDetail(h2h, sos), SEED)
        assert names(ranked) == [1, 2]
        assert [r for r, _, _ in ranked] == [1, 2]
        assert all(decided == [criterion] for _, _, decided in ranked)


@pytest.mark.parametrize("criterion", ranking.CRITERIA)
def test_a_criterion_that_does_not_separate_leaves_the_tie_to_the_lot(criterion: str) -> None:
    a, b = totals(1), totals(2)
    ranked = ranking.rank([a, b], [criterion], FakeDetail(), SEED)
    assert sorted(names(ranked)) == [1, 2]
    assert all(decided == ["lot"] for _, _, decided in ranked)
    expected = sorted([1, 2], key=lambda e: ranking.lot(SEED, e))
    assert names(ranked) == expected


def test_the_default_order_is_points_placement_dsi_rounds_won_h2h_sos_best_dsi() -> None:
    assert ranking.DEFAULT_ORDER == (
        "points",
        "placement",
        "dsi",
        "rounds_won",
        "head_to_head",
        "sos",
        "best_dsi",
    )
    assert set(ranking.DEFAULT_ORDER) <= set(ranking.CRITERIA)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (ranking.DEFAULT_ORDER[i], ranking.DEFAULT_ORDER[j])
        for i in range(len(ranking.DEFAULT_ORDER))
        for j in range(i + 1, len(ranking.DEFAULT_ORDER))
    ],
)
def test_an_earlier_criterion_of_the_default_order_outweighs_any_later_one(
    earlier: str, later: str
) -> None:
    """Entrant 1 is better on the earlier criterion, entrant 2 on the later one."""
    one, _, h2h_one, sos_one = BETTER[earlier]
    two, _, h2h_two, sos_two = BETTER[later]
    h2h = {1: h2h_one.get(1, 0.0), 2: h2h_two.get(1, 0.0)} if h2h_one or h2h_two else {}
    sos = {1: sos_one.get(1, 0.0), 2: sos_two.get(1, 0.0)} if sos_one or sos_two else {}
    a, b = totals(1, **one), totals(2, **two)
    ranked = ranking.rank([b, a], ranking.DEFAULT_ORDER, FakeDetail(h2h, sos), SEED)
    assert names(ranked) == [1, 2]
    assert ranked[0][2] == [earlier]


def test_ties_cascade_through_the_default_order_one_criterion_at_a_time() -> None:
    field = [
        totals(1, points=3.0),  # best on points
        totals(2, points=2.0, placement_sum=2.4),  # ties 3-6 on points, best placement
        totals(3, points=2.0, dsi_sum=4.4),  # ties 3-6 on placement, best dsi
        totals(4, points=2.0, rounds_won=5),  # ties 5-6 on dsi, more rounds won
        totals(5, points=2.0),
        totals(6, points=2.0),
        totals(7, points=1.0),  # worst on points
    ]
    detail = FakeDetail(h2h={5: 1.0, 6: 0.0})
    ranked = ranking.rank(list(reversed(field)), ranking.DEFAULT_ORDER, detail, SEED)
    assert names(ranked) == [1, 2, 3, 4, 5, 6, 7]
    decided = {t.entrant: d for _, t, d in ranked}
    assert decided[1] == ["points"]
    assert decided[2] == ["points", "placement"]
    assert decided[3] == ["points", "placement", "dsi"]
    assert decided[4] == ["points", "placement", "dsi", "rounds_won"]
    assert decided[5] == decided[6] == ["points", "placement", "dsi", "rounds_won", "head_to_head"]
    assert decided[7] == ["points"]
    # the game-by-game criteria were asked about the last tied pair only
    assert detail.asked == [("head_to_head", (5, 6))]


def test_head_to_head_and_sos_are_asked_about_each_tied_group_separately() -> None:
    field = [totals(1), totals(2), totals(3, points=1.0), totals(4, points=1.0)]
    detail = FakeDetail(h2h={1: 1.0, 3: 1.0}, sos={})
    ranked = ranking.rank(field, ["points", "head_to_head", "sos"], detail, SEED)
    assert names(ranked) == [1, 2, 3, 4]
    assert sorted(detail.asked) == [("head_to_head", (1, 2)), ("head_to_head", (3, 4))]


def test_sos_breaks_what_head_to_head_leaves_tied() -> None:
    field = [totals(1), totals(2), totals(3)]
    detail = FakeDetail(h2h={1: 1.0, 2: 0.5, 3: 0.5}, sos={2: 0.3, 3: 0.6})
    ranked = ranking.rank(field, ["head_to_head", "sos"], detail, SEED)
    assert names(ranked) == [1, 3, 2]
    assert ("sos", (2, 3)) in detail.asked
    assert ("sos", (1, 2, 3)) not in detail.asked


def test_a_configured_order_replaces_the_default() -> None:
    many_wins = totals(1, wins=3, points=1.0)
    many_points = totals(2, wins=1, points=3.0)
    by_default = ranking.rank([many_wins, many_points], ranking.DEFAULT_ORDER, FakeDetail(), SEED)
    by_wins = ranking.rank([many_wins, many_points], ["wins", "points"], FakeDetail(), SEED)
    assert names(by_default) == [2, 1]
    assert names(by_wins) == [1, 2]


def test_an_empty_order_ranks_by_the_lot_alone() -> None:
    field = [totals(e, points=float(e)) for e in range(6)]
    ranked = ranking.rank(field, [], FakeDetail(), SEED)
    assert names(ranked) == sorted(range(6), key=lambda e: ranking.lot(SEED, e))
    assert all(decided == ["lot"] for _, _, decided in ranked)


def test_an_unknown_criterion_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown tie-break 'coin_flip'; choose from points"):
        ranking.rank([totals(1)], ["points", "coin_flip"], FakeDetail(), SEED)


def test_nobody_shares_a_final_rank_and_ranks_run_from_one() -> None:
    field = [totals(e) for e in range(10)]
    ranked = ranking.rank(field, ranking.DEFAULT_ORDER, FakeDetail(), SEED)
    assert [r for r, _, _ in ranked] == list(range(1, 11))
    assert sorted(names(ranked)) == list(range(10))


# --- the lot ---------------------------------------------------------------------------------


def test_the_lot_is_a_sha256_of_the_seed_and_the_entrant() -> None:
    import hashlib

    assert ranking.lot("seed", 7) == hashlib.sha256(b"seed:7").hexdigest()


@given(st.text(min_size=1, max_size=20), st.lists(st.integers(0, 500), unique=True, max_size=12))
def test_the_lot_orders_a_tie_the_same_way_every_time_and_whatever_order_it_arrives_in(
    seed: str, entrants: list[int]
) -> None:
    field = [totals(e) for e in entrants]
    first = ranking.rank(field, ranking.DEFAULT_ORDER, FakeDetail(), seed)
    again = ranking.rank(list(reversed(field)), ranking.DEFAULT_ORDER, FakeDetail(), seed)
    assert names(first) == names(again) == sorted(entrants, key=lambda e: ranking.lot(seed, e))


def test_another_seed_draws_another_lot() -> None:
    field = [totals(e) for e in range(8)]
    orders = {
        tuple(names(ranking.rank(field, [], FakeDetail(), seed))) for seed in ("a", "b", "c", "d")
    }
    assert len(orders) > 1


# --- metrics -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("place", "size", "expected"),
    [(1, 4, 1.0), (4, 4, 0.0), (2, 4, 2 / 3), (3, 6, 0.6), (2, 2, 0.0), (1, 1, 1.0)],
)
def test_normalised_placement_runs_from_one_for_first_to_zero_for_last(
    place: int, size: int, expected: float
) -> None:
    assert ranking.normalised(place, size) == pytest.approx(expected)


def test_averages_divide_by_games_and_are_zero_without_games() -> None:
    t = totals(1, games=4, placement_sum=3.0, dsi_sum=5.0)
    assert t.placement == 0.75
    assert t.dsi == 1.25
    nobody = totals(2, games=0, placement_sum=0.0, dsi_sum=0.0)
    assert nobody.placement == nobody.dsi == 0.0


def test_averages_not_totals_decide_placement_and_dsi() -> None:
    """More games must not mean a better placement: 3 of 4 beats 4 of 8."""
    few = totals(1, games=4, placement_sum=3.0, dsi_sum=4.0)
    many = totals(2, games=8, placement_sum=4.0, dsi_sum=12.0)
    assert names(ranking.rank([many, few], ["placement"], FakeDetail(), SEED)) == [1, 2]
    assert names(ranking.rank([many, few], ["dsi"], FakeDetail(), SEED)) == [2, 1]
