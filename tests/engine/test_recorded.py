"""Checking rounds played with real cards against the deck (games.engine.recorded).

What a deck can pay comes from the engine's card catalogue (RULES.md section 1), and
its totals must be RULES.md 1.4's. A seat's stack and the others' are disjoint parts of
one deck (RULES #25), so the seats are checked one by one and together: together they
cannot hold more cards of a value than the deck (two Penny Jars of $1,000 in the 2021
and German advanced decks). The check is safely conservative: the property test at the
bottom plays real games with the engine and feeds every round's true scores to it, and
none is refused. Endings are in test_recorded_outcome.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import EngineError, RuleSet, ScoreError
from games.engine.recorded import check_round, deck_for, outcome
from tests.engine.strategies import Game, games, playout, rule_sets

ADVANCED = {"penny_jar": True, "action_cards": True}
PENNY_JARS = {"penny_jar": True}


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


def test_a_seat_worth_more_than_the_deck_says_so_with_the_decks_total() -> None:
    """$1,500,000 typed as 1500 thousands: the real reason is the deck's total, not the
    step between card values (issue 27; RULES.md 1.2, a deck is worth $1.36M-$1.39M)."""
    error = refusal(rules(), [1_500_000, 0, 0, 0])
    assert error.code == "dollars_above_deck"
    assert error.details == {"seat": 0, "dollars": 1_500_000, "deck_total": deck_for(rules()).total}
    assert f"the whole deck is worth ${deck_for(rules()).total:,}" in error.message


def test_negative_dollars_are_refused_for_their_seat() -> None:
    error = refusal(rules(), [100_000, 0, -10_000, 0])
    assert error.code == "negative_dollars"
    assert error.details == {"seat": 2}
    assert error.message == "Dollars cannot be negative."


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


def test_score_error_is_an_engine_error_with_a_stable_code_rebuilt_from_its_args() -> None:
    error = ScoreError("No.", "impossible_dollars", {"seat": 1})
    assert isinstance(error, EngineError)
    assert (error.code, error.message, error.details) == ("impossible_dollars", "No.", {"seat": 1})
    assert error.http_status == 422
    rebuilt = ScoreError(*error.args)  # as a task's result backend rebuilds it
    assert (rebuilt.code, rebuilt.details) == (error.code, error.details)


# --- the gap that was open: each seat possible, not all together ---------------------------


def test_five_penny_jars_across_three_seats_are_refused_although_each_seat_is_possible() -> None:
    """$7,000 needs both Penny Jars ($5,000 asset + 2 x $1,000), $6,000 one: 5 of 2.

    Each seat alone is a stack of the deck, and the $20,000 total is one too (four
    $5,000 assets), so only the joint check can see it (RULES.md 1.2, #25)."""
    ruleset = rules(advanced=PENNY_JARS)
    for alone in ([7_000, 0, 0, 0], [0, 7_000, 0, 0], [0, 0, 6_000, 0]):
        check_round(ruleset, alone)
    assert deck_for(ruleset).can_make(20_000)
    error = refusal(ruleset, [7_000, 7_000, 6_000, 0])
    assert error.code == "not_enough_cards"
    assert error.details == {
        "seat": 1,  # seat 0 takes both jars; from seat 1 on the deck cannot pay
        "seats": [0, 1, 2],
        "value": 1_000,
        "cards": ["penny_jar"],
        "needed": 5,
        "deck_count": 2,
    }
    assert error.message == (
        "Together the seats need at least 5 cards worth $1,000 (Penny Jar), "
        "but the deck holds only 2."
    )
    assert error.http_status == 422


def test_the_german_deck_names_its_own_penny_jar() -> None:
    error = refusal(rules("de2023", seats=5, advanced=PENNY_JARS), [6_000] * 5)
    assert error.code == "not_enough_cards"
    assert error.details["cards"] == ["muenzenglas"]
    assert "(Münzenglas)" in error.message


@pytest.mark.parametrize(
    "dollars",
    [
        [6_000, 6_000, 0, 0],  # one jar each: both jars used
        [7_000, 10_000, 0, 0],  # both jars in one stack
        [1_011_000, 370_000, 6_000, 0],  # one jar each, near the whole deck
        [6_000, 0, 0, 1_381_000],  # the whole deck, split
    ],
)
def test_rounds_the_penny_jars_can_pay_together_are_accepted(dollars: list[int]) -> None:
    check_round(rules(advanced=PENNY_JARS), dollars)


def test_without_penny_jars_no_value_bounds_the_seats_beyond_the_totals() -> None:
    """Every classic value is a multiple of $5,000, which every other value divides too:
    a seat never needs one value in particular, so only the totals bound the round."""
    for edition, seats in (("2011", 4), ("2021", 4), ("2021", 2), ("de2023", 6)):
        deck = deck_for(rules(edition, seats))
        assert all(d.fewest(100_000) == 0 for d in deck.denominations)


def test_a_seat_needs_the_fewest_jars_its_other_cards_allow() -> None:
    jar = deck_for(rules(advanced=PENNY_JARS)).denominations[0]
    assert (jar.value, jar.count, jar.rest_unit) == (1_000, 2, 5_000)
    assert [jar.fewest(d) for d in (0, 10_000, 6_000, 11_000, 7_000, 12_000, 8_000)] == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,  # more than the deck: check_round refused the seat already
    ]


def test_seat_by_seat_refusals_keep_their_codes_before_the_joint_check() -> None:
    """The older, more specific refusals still come first (docs/errors.md)."""
    ruleset = rules(advanced=PENNY_JARS)
    assert refusal(ruleset, [8_000, 7_000, 0, 0]).code == "impossible_dollars"
    assert refusal(ruleset, [7_000, 7_000, 0, 0]).code == "impossible_total"


# --- never refuse a real game's round: the property ----------------------------------------


@st.composite
def games_with_penny_jars_often(draw: st.DrawFn) -> Game:
    """Any rule set; half of them with the Penny Jars (the cards the joint check bounds)."""
    jars = draw(st.booleans())
    if jars:
        pinned = rule_sets(presets=("2021", "de2023"), advanced={"penny_jar": True})
        return draw(games(pinned))
    return draw(games())


@given(games_with_penny_jars_often())
def test_every_round_of_a_real_game_is_accepted_and_ends_where_the_engine_ended(
    game: Game,
) -> None:
    """Play a random-legal game with the engine; its true round scores, recorded as a
    real table would, pass every check, and score to the engine's tallies, round leaders
    and winners (RULES #22-25, 2.8.8)."""
    ends = [
        e for step in playout(game) for e in step.events if e["type"] in ("round_end", "game_end")
    ]
    rounds = [e for e in ends if e["type"] == "round_end"]
    for event in rounds:
        check_round(game.rules, event["scores"])
    scored = outcome(game.rules, [e["scores"] for e in rounds])
    assert [list(r.tallies) for r in scored.rounds] == [e["tallies"] for e in rounds]
    assert [list(r.leaders) for r in scored.rounds] == [e["round_winners"] for e in rounds]
    end = next((e for e in ends if e["type"] == "game_end"), None)
    if end is not None:
        assert scored.winners is not None
        assert list(scored.winners) == end["winners"]
        assert list(scored.ranking) == end["ranking"]
    else:  # the playout stopped at its decision limit
        assert scored.winners is None
