"""Recorded rounds played through the engine's ending rules (games.engine.recorded).

Endings come from the engine's own ``decide`` (RULES #22-24, 2.8.8), so a recorded game
ends where a digital one with the same round scores would (the property test in
test_recorded.py plays real games to check exactly that).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import RuleSet, ScoreError
from games.engine.recorded import Outcome, RoundResult, outcome


def rules(edition: str = "2021", seats: int = 4, **options: Any) -> RuleSet:
    return RuleSet.preset(edition, seats=seats, **options)


# --- outcome: the endings (RULES #22-24) ----------------------------------------------------


def test_classic_ends_when_a_tally_reaches_the_target_inclusively_by_default() -> None:
    ruleset = rules(seats=2)
    assert outcome(ruleset, [[600_000, 300_000]]).winners is None
    result = outcome(ruleset, [[600_000, 300_000], [400_000, 200_000]])
    assert result.tallies == (1_000_000, 500_000)
    assert result.winners == (0,)


def test_with_the_target_exclusive_exactly_the_target_is_not_enough() -> None:
    ruleset = rules(seats=2, target_inclusive=False)
    assert outcome(ruleset, [[600_000, 300_000], [400_000, 200_000]]).winners is None
    assert outcome(ruleset, [[600_000, 300_000], [410_000, 200_000]]).winners == (0,)


def test_a_lower_target_ends_the_classic_game_sooner() -> None:
    assert outcome(rules(seats=2, target=300_000), [[300_000, 0]]).winners == (0,)


def test_classic_highest_tally_wins_when_several_cross_the_target() -> None:
    result = outcome(rules(seats=3), [[500_000, 600_000, 0], [520_000, 450_000, 0]])
    assert result.tallies == (1_020_000, 1_050_000, 0)
    assert result.winners == (1,)


def test_classic_tie_at_the_top_plays_another_round_by_default() -> None:
    ruleset = rules(seats=2)
    rounds = [[500_000, 500_000], [500_000, 500_000]]
    assert outcome(ruleset, rounds).winners is None
    assert outcome(ruleset, [*rounds, [10_000, 0]]).winners == (0,)


def test_classic_tie_at_the_top_is_shared_with_the_shared_win_policy() -> None:
    ruleset = rules(seats=3, tie_policy="shared_win")
    result = outcome(ruleset, [[500_000, 500_000, 10_000], [500_000, 500_000, 0]])
    assert result.winners == (0, 1)


def test_quick_ends_after_one_round_with_the_highest_score() -> None:
    result = outcome(rules(seats=3, ending="quick"), [[100_000, 300_000, 200_000]])
    assert result.winners == (1,)
    assert result.wins == (0, 1, 0)


def test_quick_tie_plays_an_extra_round_or_is_shared() -> None:
    tie = [[300_000, 300_000, 200_000]]
    assert outcome(rules(seats=3, ending="quick"), tie).winners is None
    extra = outcome(rules(seats=3, ending="quick"), [*tie, [0, 10_000, 0]])
    assert extra.winners == (1,)
    shared = outcome(rules(seats=3, ending="quick", tie_policy="shared_win"), tie)
    assert shared.winners == (0, 1)


def test_highest_after_three_rounds_by_default() -> None:
    ruleset = rules(seats=2, ending="highest_after_n")
    rounds = [[100_000, 50_000], [100_000, 200_000]]
    assert outcome(ruleset, rounds).winners is None
    assert outcome(ruleset, [*rounds, [0, 10_000]]).winners == (1,)


def test_highest_after_n_uses_the_configured_n() -> None:
    ruleset = rules(seats=2, ending="highest_after_n", ending_rounds=2)
    assert outcome(ruleset, [[100_000, 50_000], [10_000, 20_000]]).winners == (0,)


def test_first_to_two_round_wins_by_default_counting_round_ties_for_everyone() -> None:
    ruleset = rules(seats=3, ending="first_to_n_round_wins")
    rounds = [[200_000, 200_000, 0], [0, 10_000, 300_000]]
    middle = outcome(ruleset, rounds)
    assert middle.wins == (1, 1, 1)
    assert middle.winners is None
    final = outcome(ruleset, [*rounds, [0, 50_000, 40_000]])
    assert final.wins == (1, 2, 1)
    assert final.winners == (1,)


def test_first_to_n_round_wins_reached_together_goes_to_the_higher_tally() -> None:
    ruleset = rules(seats=3, ending="first_to_n_round_wins")
    rounds = [[100_000, 0, 50_000], [0, 200_000, 50_000], [50_000, 50_000, 0]]
    result = outcome(ruleset, rounds)
    assert result.wins == (2, 2, 0)
    assert result.tallies == (150_000, 250_000, 100_000)
    assert result.winners == (1,)


def test_first_to_n_round_wins_reached_together_on_equal_tallies_follows_the_tie_policy() -> None:
    rounds = [[100_000, 100_000, 0], [200_000, 200_000, 0]]
    assert outcome(rules(seats=3, ending="first_to_n_round_wins"), rounds).winners is None
    shared = rules(seats=3, ending="first_to_n_round_wins", tie_policy="shared_win")
    assert outcome(shared, rounds).winners == (0, 1)


def test_rounds_after_the_game_ended_are_refused_naming_the_round_it_ended_after() -> None:
    ruleset = rules(seats=2, ending="quick")
    with pytest.raises(ScoreError) as error:
        outcome(ruleset, [[100_000, 50_000], [10_000, 0]])
    assert error.value.code == "game_already_ended"
    assert error.value.details == {"ended_after": 1}


def test_no_rounds_means_no_winner_and_zero_tallies() -> None:
    result = outcome(rules(seats=3), [])
    assert result == Outcome((0, 0, 0), (0, 0, 0), None)


def test_each_round_is_scored_once_with_its_tallies_and_every_tied_leader() -> None:
    """RULES 2.8.8: tied round leaders are all credited."""
    result = outcome(rules(seats=3), [[200_000, 200_000, 0], [0, 10_000, 300_000]])
    assert result.rounds == (
        RoundResult(1, (200_000, 200_000, 0), (200_000, 200_000, 0), (0, 1)),
        RoundResult(2, (0, 10_000, 300_000), (200_000, 210_000, 300_000), (2,)),
    )
    assert result.ranking == ()  # the classic game goes on


def test_an_ended_game_carries_the_engine_s_final_ranking() -> None:
    result = outcome(rules(seats=3, ending="quick"), [[100_000, 300_000, 100_000]])
    assert [(row["seat"], row["place"], row["winner"]) for row in result.ranking] == [
        (1, 1, True),
        (0, 2, False),  # tied places share a place, in seat order
        (2, 2, False),
    ]
