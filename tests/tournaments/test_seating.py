"""Seating (tournaments.seating, pure): table sizes, round-robin schedules, Swiss tables.

hypothesis draws fields, table sizes and seeds; the promises checked are the issues'
(everyone seated once a round, tables of 2-6, the intended number of games, the same
seed the same plan, 16 entrants at tables of 4 meeting exactly once over 5 rounds, and
never worse than a random search given twice the time, for 8-40 entrants over 3-6
rounds) and the module's own (the best schedule there is where every schedule can be
checked, exact affine planes, balanced seat positions, top-down Swiss tables that avoid
rematches, quality figures that say what the schedule does).
"""

from __future__ import annotations

import time
from collections import Counter
from itertools import combinations
from random import Random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tournaments import seating
from tournaments.seating import History, Quality
from tournaments.seating.rounds import step_limit
from tournaments.seating.whole import improve

# Each example runs a seeded local search of up to a second: few examples, no deadline.
SEARCH = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

sizes_allowed = st.lists(st.integers(2, 6), min_size=1, max_size=5, unique=True).map(sorted)


@st.composite
def fields(draw: st.DrawFn, max_n: int = 30) -> tuple[int, list[int], int]:
    """An entrant count, allowed table sizes that can seat it, and the preferred size."""
    allowed = draw(sizes_allowed)
    preferred = draw(st.sampled_from(allowed))
    n = draw(st.integers(2, max_n))
    try:
        seating.table_sizes(n, allowed, preferred)
    except ValueError:
        assume(False)
    return n, allowed, preferred


def pairs(rounds: list[list[list[int]]]) -> Counter[tuple[int, int]]:
    """How often each pair shared a table."""
    met: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        for table in tables:
            met.update(combinations(sorted(table), 2))
    return met


# --- table_sizes -------------------------------------------------------------------------


def brute_force_best(n: int, allowed: list[int], preferred: int) -> tuple[int, int] | None:
    """(preferred tables, -distance from preferred) of the best partition, by enumeration."""
    best = None

    def walk(left: int, sizes: list[int], score: tuple[int, int]) -> None:
        nonlocal best
        if not sizes:
            if left == 0 and (best is None or score > best):
                best = score
            return
        size, rest = sizes[0], sizes[1:]
        for k in range(left // size + 1):
            walk(
                left - k * size,
                rest,
                (score[0] + k * (size == preferred), score[1] - k * abs(size - preferred)),
            )

    walk(n, allowed, (0, 0))
    return best


@settings(deadline=None)
@given(st.integers(1, 40), sizes_allowed, st.data())
def test_table_sizes_seat_everyone_with_the_most_tables_of_the_preferred_size(
    n: int, allowed: list[int], data: st.DataObject
) -> None:
    preferred = data.draw(st.sampled_from(allowed))
    best = brute_force_best(n, allowed, preferred)
    if best is None:
        with pytest.raises(ValueError, match="cannot be seated"):
            seating.table_sizes(n, allowed, preferred)
        return
    sizes = seating.table_sizes(n, allowed, preferred)
    assert sum(sizes) == n
    assert set(sizes) <= set(allowed)
    assert sizes == sorted(sizes, reverse=True)
    preferred_tables = sizes.count(preferred)
    distance = sum(abs(s - preferred) for s in sizes)
    assert (preferred_tables, -distance) == best


@pytest.mark.parametrize(
    ("n", "allowed", "preferred", "expected"),
    [
        (13, (3, 4, 5, 6), 4, [5, 4, 4]),
        (7, (3, 4, 5, 6), 4, [4, 3]),
        (16, (4,), 4, [4, 4, 4, 4]),
        (10, (3, 4, 5, 6), 6, [6, 4]),
        (5, (2, 3), 2, [3, 2]),
    ],
)
def test_table_sizes_of_worked_examples(
    n: int, allowed: tuple[int, ...], preferred: int, expected: list[int]
) -> None:
    assert seating.table_sizes(n, allowed, preferred) == expected


def test_table_sizes_ignore_sizes_outside_two_to_six_and_refuse_when_none_is_left() -> None:
    assert seating.table_sizes(8, (1, 4, 7, 8), 4) == [4, 4]
    with pytest.raises(ValueError, match="from 2 to 6"):
        seating.table_sizes(8, (1, 7, 8), 7)
    with pytest.raises(ValueError, match="cannot be seated"):
        seating.table_sizes(7, (2, 4), 4)


@pytest.mark.parametrize("n", [0, 1])
def test_no_entrants_or_one_cannot_be_seated_and_a_schedule_says_so_without_dividing_by_zero(
    n: int,
) -> None:
    with pytest.raises(ValueError, match="cannot be seated"):
        seating.table_sizes(n)
    with pytest.raises(ValueError, match="cannot be seated"):
        seating.schedule(n, 3)


def test_the_search_limits_of_an_empty_field_are_the_minimum_steps() -> None:
    assert step_limit(0, 0) == step_limit(0, 3) == 2000
    assert improve([[], []], 0, History(), Random(1)) == [[], []]
    assert improve([[[0]]], 1, History(), Random(1)) == [[[0]]]


# --- schedule: the promises of every schedule ------------------------------------------


@SEARCH
@given(fields(), st.integers(1, 6), st.integers(0, 2**32))
def test_every_entrant_sits_at_exactly_one_table_within_the_allowed_sizes_every_round(
    field: tuple[int, list[int], int], rounds: int, seed: int
) -> None:
    n, allowed, preferred = field
    plan = seating.schedule(n, rounds, allowed=allowed, preferred=preferred, seed=seed)
    assert len(plan.rounds) == rounds
    for tables in plan.rounds:
        seated = [entrant for table in tables for entrant in table]
        assert sorted(seated) == list(range(n))  # everyone, exactly once
        assert all(2 <= len(table) <= 6 and len(table) in allowed for table in tables)
        sizes = sorted((len(t) for t in tables), reverse=True)
        assert sizes == seating.table_sizes(n, allowed, preferred)
    games = Counter(entrant for tables in plan.rounds for table in tables for entrant in table)
    assert games == dict.fromkeys(range(n), rounds)  # everyone plays the intended games


@SEARCH
@given(fields(max_n=24), st.integers(1, 5), st.integers(0, 2**32))
def test_the_same_seed_gives_the_same_schedule(
    field: tuple[int, list[int], int], rounds: int, seed: int
) -> None:
    n, allowed, preferred = field
    first = seating.schedule(n, rounds, allowed=allowed, preferred=preferred, seed=seed)
    again = seating.schedule(n, rounds, allowed=allowed, preferred=preferred, seed=seed)
    assert again.rounds == first.rounds
    assert again.quality == first.quality


def test_different_seeds_give_different_schedules() -> None:
    plans = {
        str(seating.schedule(20, 3, allowed=(4,), preferred=4, seed=seed).rounds)
        for seed in range(5)
    }
    assert len(plans) == 5


def test_a_schedule_continues_a_history_without_repeating_its_pairs() -> None:
    history = History()
    first = seating.schedule(24, 2, allowed=(4,), preferred=4, seed=1, history=history)
    more = seating.schedule(24, 2, allowed=(4,), preferred=4, seed=2, history=history)
    met = pairs(first.rounds + more.rounds)
    assert max(met.values()) == 1


# --- schedule: meetings -------------------------------------------------------------------


def test_16_entrants_at_tables_of_4_over_5_rounds_meet_every_other_entrant_exactly_once() -> None:
    plan = seating.schedule(16, 5, allowed=(4,), preferred=4, seed=123)
    met = pairs(plan.rounds)
    assert set(met) == set(combinations(range(16), 2))  # all 120 pairs met
    assert set(met.values()) == {1}  # and none twice
    assert plan.quality.max_meetings == 1
    assert plan.quality.repeated_pairs == 0


def test_16_entrants_meet_exactly_once_whatever_the_allowed_sizes_around_the_preferred_4() -> None:
    plan = seating.schedule(16, 5, allowed=(3, 4, 5, 6), preferred=4, seed=9)
    assert all(len(table) == 4 for tables in plan.rounds for table in tables)
    assert set(pairs(plan.rounds).values()) == {1}
    assert len(pairs(plan.rounds)) == 120


@pytest.mark.parametrize("q", [2, 3, 4, 5])
def test_the_affine_plane_of_order_q_seats_every_pair_together_exactly_once(q: int) -> None:
    classes = seating.affine_rounds(q)
    assert classes is not None
    assert len(classes) == q + 1
    for tables in classes:
        assert len(tables) == q
        assert sorted(e for table in tables for e in table) == list(range(q * q))
        assert all(len(table) == q for table in tables)
    met = pairs(classes)
    assert len(met) == q * q * (q * q - 1) // 2
    assert set(met.values()) == {1}


@pytest.mark.parametrize("q", [2, 3, 4, 5])
def test_q_squared_entrants_at_tables_of_q_get_the_exact_design(q: int) -> None:
    plan = seating.schedule(q * q, q + 1, allowed=(q,), preferred=q, seed=0)
    met = pairs(plan.rounds)
    assert len(met) == q * q * (q * q - 1) // 2
    assert set(met.values()) == {1}
    assert plan.quality == Quality(
        max_meetings=1, repeated_pairs=0, consecutive_repeats=0, seat_spread=1
    )


def test_there_is_no_affine_plane_of_order_6_or_any_order_beyond_5() -> None:
    assert seating.affine_rounds(6) is None
    assert seating.affine_rounds(7) is None


def test_36_entrants_at_tables_of_6_still_get_a_schedule_without_the_exact_design() -> None:
    plan = seating.schedule(36, 3, allowed=(6,), preferred=6, seed=4)
    assert plan.quality.max_meetings == 1  # three rounds need no repeat
    assert all(len(table) == 6 for tables in plan.rounds for table in tables)


@SEARCH
@given(st.integers(6, 12).flatmap(lambda k: st.tuples(st.just(k), st.integers(2, k // 3))),
       st.integers(0, 2**32))  # fmt: skip
def test_a_field_large_enough_never_repeats_a_pair(sizes: tuple[int, int], seed: int) -> None:
    """k tables of 4 over at most k/3 rounds: each entrant meets 3 of 4k - 1 a round, so
    there is room to spare and a repeat would be the search's fault."""
    k, rounds = sizes
    plan = seating.schedule(4 * k, rounds, allowed=(4,), preferred=4, seed=seed)
    assert plan.quality.max_meetings == 1
    assert plan.quality.consecutive_repeats == 0


def test_when_repeats_cannot_be_avoided_every_pair_still_meets_and_quality_says_so() -> None:
    """12 entrants at tables of 4 must repeat from round 2 (each meets 3 of 11 a round)."""
    plan = seating.schedule(12, 4, allowed=(4,), preferred=4, seed=2)
    met = pairs(plan.rounds)
    assert sum(met.values()) == 4 * 3 * 6  # four rounds of three tables of six pairs
    assert plan.quality.repeated_pairs == sum(1 for m in met.values() if m > 1) > 0
    assert plan.quality.max_meetings == max(met.values())


def all_seatings(entrants: list[int], sizes: list[int]) -> list[list[tuple[int, ...]]]:
    """Every way to split the entrants into tables of ``sizes`` (the order of tables of one
    size ignored: the first entrant left anchors the next of them)."""
    if not sizes:
        return [[]]
    size, rest = sizes[0], sizes[1:]
    out: list[list[tuple[int, ...]]] = []
    if rest and rest[0] == size:
        tables = [(entrants[0], *mates) for mates in combinations(entrants[1:], size - 1)]
    else:
        tables = list(combinations(entrants, size))
    for table in tables:
        left = [e for e in entrants if e not in table]
        out.extend([table, *more] for more in all_seatings(left, rest))
    return out


def key(
    rounds: list[list[list[int]]] | list[list[tuple[int, ...]]], history: History | None = None
) -> tuple[int, int, int]:
    """The objective (docs/tournaments.md): (most meetings of any pair, sum over pairs of
    meetings squared, consecutive repeats), history's meetings and last round included."""
    history = history or History()
    met = Counter(history.meetings)
    previous, consecutive = set(history.last_round), 0
    for tables in rounds:
        seated = {p for table in tables for p in combinations(sorted(table), 2)}
        met.update(seated)
        consecutive += len(seated & previous)
        previous = seated
    return max(met.values()), sum(m * m for m in met.values()), consecutive


def best_key(n: int, sizes: list[int], rounds: int) -> tuple[int, int, int]:
    """The least key of any schedule, by enumeration: round one fixed (relabelling the
    entrants turns any schedule into one starting with it), bounds pruned."""
    options = all_seatings(list(range(n)), sizes)
    best = (n * rounds, n * n * rounds * rounds, n * rounds)

    def walk(plan: list[list[tuple[int, ...]]]) -> None:
        nonlocal best
        if key(plan)[:2] > best[:2]:
            return  # adding rounds only adds meetings
        if len(plan) == rounds:
            best = min(best, key(plan))
            return
        for option in options:
            walk([*plan, option])

    walk([options[0]])
    return best


@pytest.mark.parametrize(
    ("n", "allowed", "rounds"),
    [(6, (3,), 4), (6, (3,), 5), (7, (3, 4), 4), (8, (4,), 3), (8, (4,), 4), (9, (4, 5), 3),
     (10, (5,), 3)],
)  # fmt: skip
def test_small_schedules_are_the_best_there_are(
    n: int, allowed: tuple[int, ...], rounds: int
) -> None:
    """Checked against every schedule: none has a smaller (max meetings, sum of m²,
    consecutive repeats), whatever the seed."""
    best = best_key(n, seating.table_sizes(n, allowed, max(allowed)), rounds)
    for seed in range(3):
        plan = seating.schedule(n, rounds, allowed=allowed, preferred=max(allowed), seed=seed)
        assert key(plan.rounds) == best


def test_8_entrants_at_tables_of_4_over_3_rounds_never_meet_three_times() -> None:
    """They must repeat (9 seats to fill with 7 rivals each). Everyone meeting everyone
    would seat a pair together in all 3 rounds; the best schedule has 12 pairs meeting
    twice and 4 never, at the same sum of squares."""
    plan = seating.schedule(8, 3, allowed=(4,), preferred=4, seed=0)
    assert sorted(Counter(pairs(plan.rounds).values()).items()) == [(1, 12), (2, 12)]
    assert plan.quality.max_meetings == 2


@pytest.mark.parametrize(("n", "past", "seed"), [(8, 2, 1), (8, 3, 2), (12, 2, 3), (12, 4, 4)])
def test_one_round_continuing_a_history_is_the_best_round_there_is(
    n: int, past: int, seed: int
) -> None:
    """A league night seats one round at a time given the season so far: the round has the
    least key of all seatings (35 for 8 entrants, 5,775 for 12), so no pair meets again
    when a seating avoiding it exists, and last round's pairs are the last to repeat."""
    history = History()
    seating.schedule(n, past, allowed=(4,), preferred=4, seed=seed, history=history)
    before = History(dict(history.meetings), set(history.last_round))
    plan = seating.schedule(n, 1, allowed=(4,), preferred=4, seed=seed, history=history)
    options = all_seatings(list(range(n)), [4] * (n // 4))
    assert key(plan.rounds, before) == min(key([o], before) for o in options)


@SEARCH
@given(st.integers(3, 5), st.integers(0, 3), st.randoms(use_true_random=False))
def test_one_round_after_another_repeats_no_pair_when_a_seating_without_one_exists(
    size: int, extra: int, rng: object
) -> None:
    """After one round of k >= size tables a round without a repeat exists (table j can
    take the i-th entrant of table j + i mod k): schedule(n, 1, history=...) finds one."""
    import random

    assert isinstance(rng, random.Random)
    k = size + extra
    everyone = list(range(size * k))
    rng.shuffle(everyone)
    history = History()
    history.record([everyone[i * size : (i + 1) * size] for i in range(k)])
    seating.schedule(size * k, 1, allowed=(size,), preferred=size, history=history)
    assert max(history.meetings.values()) == 1


# --- schedule: against random search ----------------------------------------------------


def seatable(n: int, allowed: tuple[int, ...]) -> bool:
    try:
        seating.table_sizes(n, allowed, 4)
    except ValueError:
        return False
    return True


# The issue's range: 8-40 entrants over 3-6 rounds, at tables of 4-5 and at tables of 3-5
# (the club-night default: 4, or 5 or 3 where the count demands), 4 preferred.
ISSUE_RANGE = [
    pytest.param(allowed, n, rounds, id=f"{''.join(map(str, allowed))}-{n}-{rounds}")
    for allowed in ((4, 5), (3, 4, 5))
    for n in range(8, 41)
    for rounds in range(3, 7)
    if seatable(n, allowed)
]


def random_search(
    n: int, sizes: list[int], rounds: int, rng: Random, seconds: float
) -> tuple[int, int]:
    """The best (most meetings of any pair, sum of m²) of whole random schedules, each
    round a uniform shuffle cut into ``sizes``, drawn for ``seconds`` (at least one)."""
    best: tuple[int, int] | None = None
    deadline = time.perf_counter() + seconds
    while best is None or time.perf_counter() < deadline:
        met = [0] * (n * n)
        worst = squares = 0
        for _ in range(rounds):
            order = list(range(n))
            rng.shuffle(order)
            start = 0
            for size in sizes:
                for a, b in combinations(sorted(order[start : start + size]), 2):
                    m = met[a * n + b] = met[a * n + b] + 1
                    squares += 2 * m - 1  # m² - (m - 1)²
                    worst = max(worst, m)
                start += size
        if best is None or (worst, squares) < best:
            best = (worst, squares)
    return best


@pytest.mark.parametrize(("allowed", "n", "rounds"), ISSUE_RANGE)
def test_a_seeded_random_search_given_twice_the_time_never_beats_a_schedule(
    allowed: tuple[int, ...], n: int, rounds: int
) -> None:
    """The issue: for 8-40 entrants over 3-6 rounds, a schedule is never worse than the
    best of random schedules drawn for twice as long as it took, on the most meetings of
    any pair or on the sum of m² (the random search keeps its best by the two, in that
    order). Twice the time makes the claim stronger, and keeps it true on a busy machine."""
    started = time.perf_counter()
    plan = seating.schedule(n, rounds, allowed=allowed, preferred=4, seed=2026)
    spent = time.perf_counter() - started
    most, squares, _ = key(plan.rounds)
    sizes = seating.table_sizes(n, allowed, 4)
    rng = Random(1000 * n + rounds)
    random_most, random_squares = random_search(n, sizes, rounds, rng, 2 * spent)
    assert most <= random_most
    assert squares <= random_squares


# --- schedule: seat positions --------------------------------------------------------------


@SEARCH
@given(st.integers(3, 6), st.integers(1, 6), st.integers(1, 8), st.integers(0, 2**32))
def test_seat_positions_are_balanced_at_tables_of_one_size(
    size: int, tables: int, rounds: int, seed: int
) -> None:
    n = size * tables
    plan = seating.schedule(n, rounds, allowed=(size,), preferred=size, seed=seed)
    positions = {e: [0] * size for e in range(n)}
    for round_tables in plan.rounds:
        for table in round_tables:
            for position, entrant in enumerate(table):
                positions[entrant][position] += 1
    spread = max(max(c) - min(c) for c in positions.values())
    assert spread <= 2  # the most and least used seat of anyone differ by two at most
    assert plan.quality.seat_spread == spread


def test_over_as_many_rounds_as_seats_everyone_sits_in_every_position_of_the_exact_design() -> None:
    plan = seating.schedule(16, 4, allowed=(4,), preferred=4, seed=0)
    for entrant in range(16):
        seen = sorted(table.index(entrant) for t in plan.rounds for table in t if entrant in table)
        assert seen == [0, 1, 2, 3]
    assert plan.quality.seat_spread == 0


# --- Swiss ---------------------------------------------------------------------------------


def test_swiss_fills_tables_top_down_by_standing_when_nobody_has_met() -> None:
    order = [7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6]
    tables = seating.swiss_tables(order, [4, 4, 4], History())
    assert [sorted(t) for t in tables] == [
        sorted(order[0:4]),
        sorted(order[4:8]),
        sorted(order[8:]),
    ]


def test_swiss_fills_mixed_table_sizes_in_the_order_given() -> None:
    order = list(range(9))
    tables = seating.swiss_tables(order, [5, 4], History())
    assert [sorted(t) for t in tables] == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 5), st.integers(0, 3), st.randoms(use_true_random=False))
def test_swiss_avoids_every_rematch_when_a_seating_without_one_exists(
    size: int, extra: int, rng: object
) -> None:
    """After one round of k >= size tables, a rematch-free round always exists: table j
    can take the i-th entrant of table j + i (mod k)."""
    import random

    assert isinstance(rng, random.Random)
    k = size + extra
    n = size * k
    everyone = list(range(n))
    rng.shuffle(everyone)
    history = History()
    history.record([everyone[i * size : (i + 1) * size] for i in range(k)])
    standings = list(range(n))
    rng.shuffle(standings)
    tables = seating.swiss_tables(standings, [size] * k, history)
    assert sorted(e for t in tables for e in t) == list(range(n))
    assert all(len(t) == size for t in tables)
    assert sum(history.met(a, b) for t in tables for a, b in combinations(t, 2)) == 0


def test_swiss_keeps_the_leaders_together_unless_they_have_met() -> None:
    history = History()
    history.record([[0, 1, 2, 3], [4, 5, 6, 7]])
    tables = seating.swiss_tables(list(range(8)), [4, 4], History())
    assert sorted(tables[0]) == [0, 1, 2, 3]
    tables = seating.swiss_tables(list(range(8)), [4, 4], history)
    # every table of 4 must now hold two from each old table: two repeats per table
    for table in tables:
        assert sum(history.met(a, b) for a, b in combinations(table, 2)) == 2
    assert 0 in tables[0]


def test_swiss_rematches_only_when_none_can_be_avoided() -> None:
    """Four entrants who have all met must meet again: the only table there is."""
    history = History()
    history.record([[0, 1, 2, 3]])
    tables = seating.swiss_tables([3, 2, 1, 0], [4], history)
    assert sorted(tables[0]) == [0, 1, 2, 3]


# --- quality -----------------------------------------------------------------------------


def test_quality_counts_meetings_repeats_consecutive_repeats_and_seat_spread() -> None:
    rounds = [
        [[0, 1, 2], [3, 4, 5]],
        [[0, 1, 3], [2, 4, 5]],  # 0-1 and 4-5 again, in consecutive rounds
        [[0, 1, 4], [2, 3, 5]],  # 0-1 a third time and 2-5 again, both consecutive
    ]
    q = seating.quality(rounds)
    met = pairs(rounds)
    assert q.max_meetings == 3 == met[(0, 1)]
    assert q.repeated_pairs == sum(1 for m in met.values() if m > 1)
    # round 2 repeats 0-1, 4-5; round 3 repeats 0-1 (from round 2) and 2-5 (from round 2)
    assert q.consecutive_repeats == 4
    # entrant 0 sat first three times: counts [3, 0, 0]
    assert q.seat_spread == 3


def test_quality_of_an_empty_schedule_is_all_zero() -> None:
    assert seating.quality([]) == Quality(0, 0, 0, 0)


def test_quality_reported_with_a_schedule_matches_a_recount() -> None:
    plan = seating.schedule(14, 4, allowed=(3, 4, 5), preferred=4, seed=77)
    assert plan.quality == seating.quality(plan.rounds)
    met = pairs(plan.rounds)
    assert plan.quality.max_meetings == max(met.values())
    assert plan.quality.repeated_pairs == sum(1 for m in met.values() if m > 1)


def test_history_counts_meetings_both_ways_and_remembers_only_the_last_round() -> None:
    history = History()
    history.record([[2, 0, 1]])
    history.record([[1, 2], [0, 3]])
    assert history.met(0, 1) == history.met(1, 0) == 1
    assert history.met(1, 2) == 2
    assert history.last_round == {(1, 2), (0, 3)}
    assert history.positions[2][:3] == [1, 1, 0]


def test_a_past_table_of_those_still_here_counts_their_meetings_and_seats() -> None:
    history = History()

    history.add_table([(0, 3), (2, 1), (7, 5)], last_round=True)  # seat 1 left; 7 of a casual 8
    history.add_table([(1, 3), (0, 1)], last_round=False)

    assert history.meetings == {(1, 3): 2, (1, 5): 1, (3, 5): 1}
    assert history.last_round == {(1, 3), (1, 5), (3, 5)}
    assert history.positions[3][:2] == [1, 1]
    assert history.positions[1][:3] == [1, 0, 1]
    assert 5 not in history.positions
