"""The search player ``ismcts``: it plays every rule set, within its budget, reproducibly.

Its never-peek property is in test_never_peek.py with the other built-ins.
"""

from __future__ import annotations

from random import Random
from time import perf_counter

import pytest
from hypothesis import given, settings

from bots.strategies import SearchStrategy, SeatView, decide, strategy
from bots.strategies.arena import Maker, budget, deals_played, duplicate, play
from bots.strategies.search import value
from games.engine import RuleSet, apply, legal_actions, new_game
from tests.engine.strategies import Game, games


@settings(max_examples=12, deadline=None)
@given(games())
def test_it_plays_any_rule_set_to_the_end_with_legal_actions(game: Game) -> None:
    """2-6 seats, draft piles, every advanced rule and ending (tests/engine/strategies.py)."""
    search = SearchStrategy(iterations=2, ms=None, horizon=8)
    others = strategy("random")
    rng = Random(game.choices)
    state = new_game(game.rules, game.seed)
    for _ in range(20_000):
        if state.over:
            break
        player = search if state.to_act == 0 else others
        action = decide(player, state, state.to_act, rng)
        assert action in legal_actions(state)
        state = apply(state, action)[0]
    assert state.over


def test_a_seed_and_an_iteration_budget_decide_the_choice() -> None:
    state = new_game(RuleSet.preset("2021", seats=4), seed=11)
    view = SeatView(state, state.to_act, worlds=True)
    picks = {SearchStrategy(iterations=12, ms=None).choose(view, Random(5)) for _ in range(3)}
    assert len(picks) == 1


def test_a_time_budget_bounds_a_decision() -> None:
    """The default is capped at half the ladder's 1,000 ms; a 20 ms budget stops near 20 ms."""
    assert (SearchStrategy().iterations, SearchStrategy().ms) == (1000, 500.0)
    state = new_game(RuleSet.preset("2021", seats=4), seed=11)
    view = SeatView(state, state.to_act, worlds=True)
    start = perf_counter()
    SearchStrategy(ms=20).choose(view, Random(1))
    assert perf_counter() - start < 0.5


def test_a_view_without_its_worlds_is_refused() -> None:
    """The search player samples worlds from its view, never from the state."""
    state = new_game(RuleSet.preset("2021", seats=4), seed=11)
    with pytest.raises(ValueError, match="worlds"):
        SearchStrategy(iterations=4, ms=None).choose(SeatView(state, state.to_act), Random(1))


def test_a_forced_move_is_played_without_search() -> None:
    """One legal action: no world is sampled, whatever the budget."""
    state = new_game(RuleSet.preset("2021", seats=2), seed=3)
    rng = Random(1)
    while len(legal_actions(state)) != 1:
        state = apply(state, legal_actions(state)[-1])[0]
    before = rng.getstate()
    choice = decide(SearchStrategy(iterations=1_000_000, ms=None), state, state.to_act, rng)
    assert choice == legal_actions(state)[0]
    assert rng.getstate() == before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"iterations": None, "ms": None}, "budget"),
        ({"iterations": 0}, "iterations"),
        ({"ms": 0.0}, "ms"),
    ],
)
def test_a_search_without_a_budget_is_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchStrategy(**kwargs)  # type: ignore[arg-type]


def test_a_lead_is_worth_more_than_a_deficit_and_a_win_is_worth_one() -> None:
    state = new_game(RuleSet.preset("2021", seats=2), seed=3)
    assert value(state, 0) == pytest.approx(0.5)  # no sets, no tallies yet
    rng = Random(2)
    while not state.over:
        state = apply(state, legal_actions(state)[int(rng.random() * len(legal_actions(state)))])[0]
    assert {value(state, 0), value(state, 1)} <= {0.0, 1.0}
    assert value(state, state.winners[0]) == 1.0


def test_the_arena_searches_past_a_random_player_with_a_small_budget() -> None:
    """Duplicate deals, intervals and ratings: ismcts beats random even on 8 iterations."""
    rules = RuleSet.preset("2021", seats=2)
    rows = {r.name: r for r in duplicate(rules, ["ismcts", "random"], 3, 1, Maker(8, None))}
    assert rows["ismcts"].games == rows["random"].games == 6
    assert rows["ismcts"].win.mean > rows["random"].win.mean
    assert rows["ismcts"].place.mean < rows["random"].place.mean
    assert rows["ismcts"].mu > rows["random"].mu
    assert abs(rows["ismcts"].win.mean + rows["random"].win.mean - 1) < 1e-9


def test_arena_play_is_the_same_game_for_the_same_seed() -> None:
    rules = RuleSet.preset("2021", seats=3)
    seats = [strategy("shark"), strategy("greedy"), strategy("random")]
    assert play(rules, 4, seats, Random(1)) == play(rules, 4, seats, Random(1))


def test_duplicate_deals_are_the_same_on_one_process_or_two() -> None:
    """Each deal has its own RNG, so spreading deals over processes changes no figure."""
    rules = RuleSet.preset("2021", seats=3)
    names = ["ismcts", "shark", "greedy"]
    one = deals_played(rules, names, 3, 5, Maker(4, None), jobs=1)
    two = deals_played(rules, names, 3, 5, Maker(4, None), jobs=2)
    assert one == two
    assert [d.decisions > 0 and d.searched == 4 * d.decisions for d in one] == [True] * 3


def test_deals_played_in_pieces_are_the_deals_played_at_once() -> None:
    """A long measure may be spread over sittings: the deals at some indices, then the
    rest, are the run's deals, each handed over with its index as it ends."""
    rules = RuleSet.preset("2021", seats=3)
    names = ["ismcts", "shark", "greedy"]
    whole = deals_played(rules, names, 3, 5, Maker(4, None), jobs=1)
    ended: list[int] = []
    first = deals_played(rules, names, 3, 5, Maker(4, None), jobs=2, only=[2, 0],
                         finished=lambda index, _: ended.append(index))  # fmt: skip
    rest = deals_played(rules, names, 3, 5, Maker(4, None), jobs=1, only=[1])
    assert first == [whole[0], whole[2]]  # in the deals' order
    assert rest == [whole[1]]
    assert sorted(ended) == [0, 2]


def test_no_deal_starts_once_its_time_has_passed() -> None:
    rules = RuleSet.preset("2021", seats=3)
    names = ["ismcts", "shark", "greedy"]
    for jobs in (1, 2):
        late = deals_played(rules, names, 3, 5, Maker(4, None), jobs=jobs, until=0.0)
        assert late == []


def test_a_measurement_drops_only_the_default_time_cap() -> None:
    assert budget(None, None) == Maker(SearchStrategy().iterations, None)
    assert budget(50, None) == Maker(50, None)
    assert budget(None, 30.0) == Maker(None, 30.0)
