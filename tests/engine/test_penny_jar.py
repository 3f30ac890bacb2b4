"""The Penny Jar's weight in challenges (RULES #27, 2.8.1).

Assets, Silver and Gold weigh 1 and the Penny Jar 2. A lone Penny Jar answering (or
opening against) a weight-1 demand must be met with weight 2: one Penny Jar, or two
weight-1 cards; any weight-2 answer returns play to single cards.
"""

from __future__ import annotations

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions
from games.engine import actions as act
from games.engine.actions import CONCEDE_ACTION, PASS_ACTION
from tests.engine.builders import ids, position

PENNY = RuleSet.preset("2021", advanced={"penny_jar": True})
PENNY_2P = RuleSet.preset("2021", seats=2, advanced={"penny_jar": True})
WEIGHT_ONE = RuleSet.preset(
    "2021", advanced={"penny_jar": True, "penny_jar_weight": 1, "second_set_challenge": True}
)
PIANO, SILVER, GOLD, JAR = ids(PENNY, ["piano", "silver", "gold", "penny_jar"])


def at_challenge(rules: RuleSet, challenger: list[str], defender: list[str]) -> State:
    """Seat 0 (with a set) may challenge seat 1's top Piano set."""
    return position(
        rules,
        hands={0: challenger, 1: defender},
        stacks={0: [["cabin", "cabin"]], 1: [["cabin", "cabin"], ["piano", "piano"]]},
        deck=["comic_books"] * 20,
    )


def demand(state: State) -> int:
    """The weight the next play in the challenge must reach."""
    assert state.challenge is not None
    return state.challenge.demand


def plays(*groups: tuple[int, ...]) -> set[int]:
    return {act.play(g) for g in groups}


def run(state: State, *actions: int) -> State:
    for a in actions:
        state, _ = apply(state, a)
    return state


def test_a_lone_penny_jar_opening_against_weight_one_demands_weight_two() -> None:
    """RULES #27, 2.8.1: a lone Penny Jar "counts as two Wild cards"; the defender must
    answer with two assets, two wilds, one of each, or another Penny Jar."""
    s = at_challenge(PENNY, ["penny_jar", "comic_books"], ["piano", "silver", "gold"])
    s = run(s, act.challenge(1, (JAR,)))
    assert demand(s) == 2
    assert set(legal_actions(s)) == plays((PIANO, SILVER), (PIANO, GOLD), (SILVER, GOLD)) | {
        CONCEDE_ACTION
    }
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.play((PIANO,)))
    assert refused.value.code == "insufficient_weight"


def test_two_assets_two_wilds_one_of_each_or_a_penny_jar_answer_weight_two() -> None:
    """RULES #27: "two assets, two Wilds, one of each, or another Penny Jar"."""
    s = at_challenge(PENNY, ["penny_jar"], ["piano", "piano", "silver", "gold", "penny_jar"])
    s = run(s, act.challenge(1, (JAR,)))
    assert set(legal_actions(s)) == plays(
        (JAR,), (PIANO, PIANO), (PIANO, SILVER), (PIANO, GOLD), (SILVER, GOLD)
    ) | {CONCEDE_ACTION}


def test_a_two_card_play_is_never_a_penny_jar_plus_another_card() -> None:
    """RULES 2.8.1: a two-card play is made of weight-1 cards only."""
    s = at_challenge(PENNY, ["penny_jar"], ["penny_jar", "silver", "piano"])
    s = run(s, act.challenge(1, (JAR,)))
    assert set(legal_actions(s)) == plays((JAR,), (PIANO, SILVER)) | {CONCEDE_ACTION}
    for mixed in ((SILVER, JAR), (PIANO, JAR)):
        with pytest.raises(IllegalAction) as refused:
            apply(s, act.play(mixed))
        assert refused.value.code == "insufficient_weight"


def test_a_two_card_answer_returns_play_to_single_cards() -> None:
    """RULES #27, 2.8.1: "If possible, continue the challenge as normal with single cards"."""
    s = at_challenge(PENNY, ["penny_jar", "piano", "piano", "silver"], ["piano", "silver"])
    s = run(s, act.challenge(1, (JAR,)), act.play((PIANO, SILVER)))
    assert demand(s) == 1
    assert set(legal_actions(s)) == plays((PIANO,), (SILVER,)) | {CONCEDE_ACTION}
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.play((PIANO, PIANO)))
    assert refused.value.code == "too_many_cards"


def test_a_penny_jar_answering_a_penny_jar_returns_play_to_single_cards() -> None:
    """RULES 2.8.1: a weight-2 answer returns to single cards "even if it was itself a Penny
    Jar"."""
    s = at_challenge(PENNY, ["penny_jar", "piano", "silver"], ["penny_jar"])
    s = run(s, act.challenge(1, (JAR,)), act.play((JAR,)))
    assert demand(s) == 1
    assert set(legal_actions(s)) == plays((PIANO,), (SILVER,)) | {CONCEDE_ACTION}


def test_a_lone_penny_jar_answering_a_single_card_demands_weight_two() -> None:
    """RULES 2.8.1: the demand rises whenever a lone Penny Jar answers a weight-1 demand,
    each time it happens in the same challenge."""
    s = at_challenge(
        PENNY, ["piano", "silver", "gold", "piano"], ["penny_jar", "penny_jar", "comic_books"]
    )
    s = run(s, act.challenge(1, (PIANO,)), act.play((JAR,)))
    assert demand(s) == 2
    assert set(legal_actions(s)) == plays((PIANO, SILVER), (PIANO, GOLD), (SILVER, GOLD)) | {
        CONCEDE_ACTION
    }
    s = run(s, act.play((SILVER, GOLD)))
    assert demand(s) == 1
    s = run(s, act.play((JAR,)))  # a lone Penny Jar against weight 1 again
    assert demand(s) == 2
    assert set(legal_actions(s)) == {CONCEDE_ACTION}  # a lone Piano is not enough
    s, events = apply(s, CONCEDE_ACTION)
    end = next(e for e in events if e["type"] == "challenge_end")
    assert end["winner"] == 1
    assert end["set_count"] == 2 + 5


def test_a_penny_jar_may_open_a_top_challenge_alone() -> None:
    """RULES 2.8.1: "A Penny Jar may open a top ... challenge alone"."""
    s = at_challenge(PENNY, ["penny_jar", "comic_books"], ["comic_books"])
    assert act.challenge(1, (JAR,)) in legal_actions(s)


def test_a_penny_jar_may_open_a_draft_challenge_alone_and_demands_weight_two() -> None:
    """RULES 2.8.1, #35: a lone Penny Jar opens a draft challenge; the drafter must then
    answer with weight 2."""
    scooter = ids(PENNY_2P, ["scooter"])[0]
    s = position(
        PENNY_2P,
        hands={0: ["scooter", "scooter", "silver"], 1: ["penny_jar"]},
        piles=[["piano", "scooter"], ["piano", "toy_train"], ["piano", "comic_books"]],
        deck=["comic_books"] * 20,
    )
    s = run(s, act.draft(scooter, (0,)))
    assert set(legal_actions(s)) == plays((JAR,)) | {PASS_ACTION}
    s = run(s, act.play((JAR,)))
    assert (s.to_act, s.challenge is not None and s.challenge.demand) == (0, 2)
    assert set(legal_actions(s)) == plays((scooter, SILVER)) | {CONCEDE_ACTION}


def test_a_penny_jar_makes_sets_as_a_normal_wild() -> None:
    """RULES #27: the Penny Jar "makes sets as normal" and is worth $1,000."""
    s = at_challenge(PENNY, ["piano", "penny_jar"], ["comic_books"])
    pair = act.pair(PIANO, JAR)
    assert pair in legal_actions(s)
    s = run(s, pair)
    assert s.stacks[0][-1].cards == (PIANO, JAR)
    assert PENNY.edition_data.card("penny_jar").value == 1_000


def test_with_penny_jar_weight_one_the_penny_jar_is_an_ordinary_wild() -> None:
    """RULES #27: ``penny_jar_weight=1`` makes it weigh 1 like Silver and Gold: single
    cards answer it, and it never raises the demand."""
    s = at_challenge(WEIGHT_ONE, ["penny_jar", "piano"], ["piano", "silver", "penny_jar"])
    s = run(s, act.challenge(1, (JAR,)))
    assert demand(s) == 1
    assert set(legal_actions(s)) == plays((PIANO,), (SILVER,), (JAR,)) | {CONCEDE_ACTION}
    s = run(s, act.play((JAR,)))
    assert demand(s) == 1
    assert set(legal_actions(s)) == plays((PIANO,)) | {CONCEDE_ACTION}


def test_with_penny_jar_weight_one_a_lone_penny_jar_cannot_open_a_second_from_top_challenge() -> (
    None
):
    """RULES #27, #28: at weight 1 the Penny Jar is one of the two cards of a second-from-top
    opening, never an opening alone."""
    s = position(
        WEIGHT_ONE,
        hands={0: ["penny_jar", "silver"], 1: ["comic_books"]},
        stacks={
            0: [["cabin", "cabin"]],
            1: [["cabin", "cabin"], ["jewels", "jewels"], ["piano", "piano"]],
        },
    )
    second = {a for a in legal_actions(s) if a >> 20 == act.CHALLENGE and a & 255 == 1}
    assert second == {act.challenge(1, (SILVER, JAR), depth=1)}
