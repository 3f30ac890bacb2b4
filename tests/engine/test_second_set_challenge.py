"""Challenging the set second from the top (RULES #28, 2.8.1).

The owner needs three sets (the bottom one stays safe); the opening is two cards (assets
of the kind and/or wilds) or a lone Penny Jar, then one card per response. A challenger's
win takes the set out of the middle onto the challenger's top; a defender's win leaves it
second, grown.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions
from games.engine import actions as act
from games.engine.actions import CONCEDE_ACTION
from tests.engine.builders import ids, position

SECOND = RuleSet.preset("2021", advanced={"second_set_challenge": True, "penny_jar": True})
PIANO, JEWELS, CABIN, SILVER, GOLD, JAR = ids(
    SECOND, ["piano", "jewels", "cabin", "silver", "gold", "penny_jar"]
)


def three_sets(rules: RuleSet, challenger: list[str], defender: list[str]) -> State:
    """Seat 1 owns Cabin (bottom), Jewels (second) and Piano (top); seat 2 owns two sets."""
    return position(
        rules,
        hands={0: challenger, 1: defender, 2: ["comic_books"], 3: ["comic_books"]},
        stacks={
            0: [["cabin", "cabin"]],
            1: [["cabin", "cabin"], ["jewels", "jewels"], ["piano", "piano"]],
            2: [["cabin", "cabin"], ["jewels", "jewels"]],
        },
        deck=["comic_books"] * 20,
    )


def second_challenges(state: State) -> set[int]:
    return {a for a in legal_actions(state) if a >> 20 == act.CHALLENGE and a & 255 == 1}


def run(state: State, *actions: int) -> tuple[State, tuple[dict[str, Any], ...]]:
    out: list[dict[str, Any]] = []
    for a in actions:
        state, events = apply(state, a)
        out.extend(events)
    return state, tuple(out)


def test_a_second_from_top_challenge_needs_a_stack_of_three_sets() -> None:
    """RULES #28: the owner must have at least three sets, so the bottom set stays safe."""
    s = three_sets(SECOND, ["jewels", "jewels"], ["comic_books"])
    assert second_challenges(s) == {act.challenge(1, (JEWELS, JEWELS), depth=1)}  # not seat 2
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.challenge(2, (JEWELS, JEWELS), depth=1))
    assert refused.value.code == "set_protected"


def test_a_second_from_top_challenge_opens_with_two_cards_or_a_lone_penny_jar() -> None:
    """RULES #28: two matching assets, two wilds, one asset and one wild, or a Penny Jar."""
    s = three_sets(SECOND, ["jewels", "jewels", "silver", "gold", "penny_jar"], ["comic_books"])
    at_one = {a for a in second_challenges(s) if (a >> 8) & 15 == 1}
    assert at_one == {
        act.challenge(1, cards, depth=1)
        for cards in (
            (JEWELS, JEWELS),
            (JEWELS, SILVER),
            (JEWELS, GOLD),
            (SILVER, GOLD),
            (JAR,),
        )
    }


@pytest.mark.parametrize(
    ("cards", "code"),
    [
        (("jewels",), "insufficient_weight"),
        (("silver",), "insufficient_weight"),
        (("jewels", "penny_jar"), "insufficient_weight"),
        (("piano", "silver"), "card_does_not_match"),
    ],
)
def test_a_second_from_top_challenge_refuses_a_single_weight_one_card_or_a_mixed_pair(
    cards: tuple[str, ...], code: str
) -> None:
    """RULES #28, 2.8.1: one weight-1 card is too light; a Penny Jar never pairs; the cards
    must match the second set's kind."""
    s = three_sets(SECOND, ["jewels", "silver", "penny_jar", "piano"], ["comic_books"])
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.challenge(1, ids(SECOND, cards), depth=1))
    assert refused.value.code == code


@pytest.mark.parametrize("opening", [("jewels", "silver"), ("penny_jar",)])
def test_after_a_second_from_top_opening_play_continues_with_single_cards(
    opening: tuple[str, ...],
) -> None:
    """RULES #28, 2.8.1: "only one card is played to defend or to continue challenging",
    even after a lone Penny Jar opened it."""
    s = three_sets(SECOND, ["jewels", "silver", "penny_jar"], ["jewels", "jewels", "gold"])
    s, _ = run(s, act.challenge(1, ids(SECOND, opening), depth=1))
    assert s.challenge is not None
    assert (s.challenge.depth, s.challenge.kind, s.challenge.demand) == (1, JEWELS, 1)
    assert set(legal_actions(s)) == {
        act.play((JEWELS,)),
        act.play((GOLD,)),
        CONCEDE_ACTION,
    }


def test_a_won_second_from_top_set_goes_on_top_of_the_challengers_stack() -> None:
    """RULES #28: the challenger's win takes the set out of the middle of the owner's stack
    and puts it on top of the challenger's stack, with every challenge card."""
    s = three_sets(SECOND, ["jewels", "silver"], ["comic_books"])
    s, events = run(s, act.challenge(1, (JEWELS, SILVER), depth=1), CONCEDE_ACTION)
    end = next(e for e in events if e["type"] == "challenge_end")
    assert (end["winner"], end["depth"], end["kind"]) == (0, "second", "jewels")
    assert [st.cards for st in s.stacks[1]] == [(CABIN, CABIN), (PIANO, PIANO)]
    assert [st.cards for st in s.stacks[0]] == [
        (CABIN, CABIN),
        (JEWELS, JEWELS, JEWELS, SILVER),
    ]


def test_a_defended_second_from_top_set_stays_second_and_grown() -> None:
    """RULES #28, #15: a defender's win leaves the set second from the top, with the cards."""
    s = three_sets(SECOND, ["jewels", "silver", "comic_books"], ["jewels"])
    s, events = run(
        s, act.challenge(1, (JEWELS, SILVER), depth=1), act.play((JEWELS,)), CONCEDE_ACTION
    )
    end = next(e for e in events if e["type"] == "challenge_end")
    assert (end["winner"], end["set_count"]) == (1, 5)
    assert [st.cards for st in s.stacks[1]] == [
        (CABIN, CABIN),
        (JEWELS, JEWELS, JEWELS, SILVER, JEWELS),
        (PIANO, PIANO),
    ]
    assert [st.cards for st in s.stacks[0]] == [(CABIN, CABIN)]


def test_second_from_top_challenges_are_off_without_the_switch() -> None:
    """RULES #28: an advanced rule on its own switch."""
    rules = RuleSet.preset("2021", advanced={"penny_jar": True})
    s = three_sets(rules, ["jewels", "jewels"], ["comic_books"])
    assert second_challenges(s) == set()
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.challenge(1, (JEWELS, JEWELS), depth=1))
    assert refused.value.code == "rule_disabled"
