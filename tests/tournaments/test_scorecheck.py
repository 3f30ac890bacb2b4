"""Deck physics and endings for recorded games (tournaments.scorecheck, pure).

What a deck can pay comes from the engine's card catalogue (RULES.md section 1), and
its totals must be RULES.md 1.4's; endings come from the engine's own ``decide``
(RULES #22-24), so a recorded game ends where a digital one would.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import RuleSet
from tournaments import scorecheck
from tournaments.scorecheck import ScoreError, check_round, deck_for, outcome

ADVANCED = {"penny_jar": True, "action_cards": True}


def rules(edition: str = "2021", seats: int = 4, **options: Any) -> RuleSet:
    return RuleSet.preset(edition, seats=seats, **options)


def refusal(ruleset: RuleSet, dollars: list[int]) -> ScoreError:
    with pytest.raises(ScoreError) as error:
        check_round(ruleset, dollars)
    return error.value


# --- the deck: RULES.md 1.4 --------------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "seats", "advanced", "total"),
    [
        ("2011", 2, {}, 1_360_000),  # 2011, any player count
        ("2011", 4, {}, 1_360_000),
        ("2011", 6, {}, 1_360_000),
        ("2021", 3, {}, 1_385_000),  # 2021 / DE classic (3 players play the full deck)
        ("2021", 5, {}, 1_385_000),
        ("de2023", 4, {}, 1_385_000),
        ("2021", 4, ADVANCED, 1_387_000),  # with advanced cards (2 Penny Jars)
        ("de2023", 6, ADVANCED, 1_387_000),
        ("2021", 4, {"penny_jar": True}, 1_387_000),  # Swap and Move are worth nothing
        ("2021", 2, {}, 1_125_000),  # 2-player: minus 8 Cabins, 2 Silver, 1 Gold
        ("de2023", 2, {}, 1_125_000),
        ("2021", 2, ADVANCED, 1_127_000),
        ("de2023", 2, ADVANCED, 1_127_000),
    ],
)
def test_deck_totals_are_those_of_rules_md_1_4(
    edition: str, seats: int, advanced: dict[str, bool], total: int
) -> None:
    assert deck_for(rules(edition, seats, advanced=advanced)).total == total


@pytest.mark.parametrize(
    ("edition", "advanced", "unit", "cheapest"),
    [
        ("2011", {}, 5_000, 10_000),  # two of the $5,000 assets
        ("2021", {}, 5_000, 10_000),
        ("de2023", {}, 5_000, 10_000),
        ("2021", {"penny_jar": True}, 1_000, 6_000),  # a $5,000 asset with the $1,000 jar
        ("de2023", ADVANCED, 1_000, 6_000),
    ],
)
def test_values_come_in_steps_of_the_deck_unit_and_the_cheapest_set_is_the_smallest_pair(
    edition: str, advanced: dict[str, bool], unit: int, cheapest: int
) -> None:
    deck = deck_for(rules(edition, advanced=advanced))
    assert deck.unit == unit
    assert deck.cheapest_set == cheapest


def test_the_deck_is_cached_per_rule_set() -> None:
    assert deck_for(rules()) is deck_for(rules())


@pytest.mark.parametrize(
    ("amount", "possible"),
    [
        (0, True),
        (6_000, True),  # $5,000 asset + one Penny Jar
        (7_000, True),  # + both Penny Jars
        (8_000, False),  # would need a third Penny Jar
        (9_000, False),
        (11_000, True),
        (1_387_000, True),  # the whole deck
        (1_388_000, False),  # more than the deck
        (-1_000, False),
        (5_500, False),  # not a multiple of the unit
    ],
)
def test_with_penny_jars_a_total_is_possible_only_with_at_most_two_of_them(
    amount: int, possible: bool
) -> None:
    assert deck_for(rules(advanced={"penny_jar": True})).can_make(amount) is possible


# --- check_round: one round's dollars ------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "seats", "advanced", "dollars"),
    [
        ("2011", 4, {}, [300_000, 250_000, 0, 10_000]),
        ("2021", 3, {}, [400_000, 350_000, 250_000]),
        ("de2023", 6, {}, [100_000, 90_000, 80_000, 70_000, 60_000, 10_000]),
        ("2021", 4, {"penny_jar": True}, [6_000, 11_000, 250_000, 0]),  # both Penny Jars
        ("2021", 2, {}, [600_000, 525_000]),  # exactly the 2-player deck
        ("2021", 4, {}, [1_385_000, 0, 0, 0]),  # one seat holding the whole deck
    ],
)
def test_rounds_the_deck_can_pay_are_accepted(
    edition: str, seats: int, advanced: dict[str, bool], dollars: list[int]
) -> None:
    check_round(rules(edition, seats, advanced=advanced), dollars)


@pytest.mark.parametrize("amount", [5_000, 7_000, 12_345, 1_000])
def test_amounts_the_classic_2021_cards_cannot_make_are_impossible_dollars(amount: int) -> None:
    error = refusal(rules(), [amount, 100_000, 0, 0])
    assert error.code == "impossible_dollars"
    assert error.details == {
        "seat": 0,
        "dollars": amount,
        "unit": 5_000,
        "cheapest_set": 10_000,
    }
    assert f"${amount:,}" in error.message


def test_a_penny_jar_amount_is_impossible_without_penny_jars() -> None:
    assert refusal(rules(), [0, 6_000, 0, 0]).details["seat"] == 1
    check_round(rules(advanced={"penny_jar": True}), [0, 6_000, 0, 0])


def test_an_amount_below_the_cheapest_set_is_impossible_even_if_cards_add_up_to_it() -> None:
    """Two Penny Jars are $2,000 of cards, but no set holds only wilds (RULES.md 1.4)."""
    error = refusal(rules(advanced={"penny_jar": True}), [2_000, 0, 0, 0])
    assert error.code == "impossible_dollars"
    assert error.details["cheapest_set"] == 6_000


def test_a_seat_worth_more_than_the_deck_is_impossible_dollars() -> None:
    error = refusal(rules(), [2_000_000, 0, 0, 0])
    assert error.code == "impossible_dollars"


def test_negative_dollars_are_refused_for_their_seat() -> None:
    error = refusal(rules(), [100_000, 0, -10_000, 0])
    assert error.code == "negative_dollars"
    assert error.details == {"seat": 2}


@pytest.mark.parametrize("dollars", [[100_000, 0, 0], [100_000, 0, 0, 0, 0], [], [10_000]])
def test_a_round_must_give_every_seat_its_dollars(dollars: list[int]) -> None:
    error = refusal(rules(seats=4), dollars)
    assert error.code == "wrong_seat_count"
    assert error.details == {"seats": 4}


def test_a_round_total_above_the_deck_is_refused_with_both_totals() -> None:
    error = refusal(rules(), [700_000, 690_000, 0, 0])
    assert error.code == "round_total_too_high"
    assert error.details == {"total": 1_390_000, "deck_total": 1_385_000}


def test_the_two_seat_deck_is_smaller_than_the_full_one() -> None:
    dollars = [600_000, 530_000]
    error = refusal(rules(seats=2), dollars)
    assert error.code == "round_total_too_high"
    assert error.details["deck_total"] == 1_125_000
    check_round(rules(seats=3), [*dollars, 0])  # three seats play the full deck


def test_seats_together_cannot_use_more_penny_jars_than_the_deck_holds() -> None:
    """Each $7,000 needs both Penny Jars; two of them would need four."""
    ruleset = rules(advanced={"penny_jar": True})
    check_round(ruleset, [7_000, 0, 0, 0])
    error = refusal(ruleset, [7_000, 7_000, 0, 0])
    assert error.code == "impossible_total"
    assert error.details == {"total": 14_000}


@given(st.lists(st.sampled_from([0, 10_000, 20_000, 30_000, 40_000, 75_000]), min_size=4,
                max_size=4))  # fmt: skip
def test_pairs_of_2021_assets_with_or_without_wilds_are_always_accepted(
    dollars: list[int],
) -> None:
    check_round(rules(), dollars)


def test_the_check_stops_at_the_first_problem_in_seat_order() -> None:
    error = refusal(rules(), [-5_000, 7_000, 0, 0])
    assert error.code == "negative_dollars"


def test_score_error_is_a_value_error_with_a_stable_code() -> None:
    error = ScoreError("impossible_dollars", "No.", seat=1)
    assert isinstance(error, ValueError)
    assert (error.code, error.message, error.details) == ("impossible_dollars", "No.", {"seat": 1})


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
    assert result == scorecheck.Outcome((0, 0, 0), (0, 0, 0), None)
