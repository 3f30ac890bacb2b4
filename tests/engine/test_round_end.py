"""The end of a round: playing out hands once the deck is empty, refills, and scoring.

RULES #20 (skip empty hands; the round ends when deck and hands are empty; no passing),
#21 (the server refills: there is no "forgot to draw") and #25 (what scores).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions
from games.engine import actions as act
from games.engine.cards import GOLD, MOVE, SWAP
from games.engine.state import DECISION_NAMES
from tests.engine.builders import Cards, ids, position

R = RuleSet()
PIANO, JEWELS, CABIN = ids(R, ["piano", "jewels", "cabin"])


def types(events: tuple[dict[str, Any], ...]) -> list[str]:
    """The event types, in order."""
    return [e["type"] for e in events]


def round_end(events: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """The round_end event among these."""
    return next(e for e in events if e["type"] == "round_end")


def last_card(
    rules: RuleSet = R,
    *,
    stacks: dict[int, list[Cards]] | None = None,
    discard: Cards = (),
    tallies: list[int] | None = None,
) -> State:
    """The last decision of a round: seat 0 holds the only card left anywhere."""
    return position(
        rules,
        hands={0: [rules.edition_data.keys[0]]},
        stacks=stacks,
        discard=discard,
        tallies=tallies,
    )


# --- RULES #20: the deck is empty ----------------------------------------------------


def test_a_player_with_an_empty_hand_is_skipped() -> None:
    """RULES #20: once the deck is empty, turns pass over seats holding no cards."""
    s = position(R, hands={0: ["piano", "cabin"], 2: ["jewels"], 3: ["jewels"]})
    s, events = apply(s, act.discard(PIANO))
    assert (s.to_act, DECISION_NAMES[s.kind]) == (2, "turn")
    assert "draw" not in types(events)
    assert s.hands[0].size == 1  # no refill from an empty deck


def test_a_lone_player_with_cards_takes_every_remaining_turn() -> None:
    """RULES #20: play continues until every hand is empty, even if only one seat has cards."""
    s = position(R, hands={1: ["piano", "cabin", "jewels"]}, to_act=1)
    s, _ = apply(s, act.discard(PIANO))
    assert s.to_act == 1
    s, _ = apply(s, act.discard(CABIN))
    assert (s.to_act, s.round) == (1, 1)
    s, events = apply(s, act.discard(JEWELS))
    assert types(events)[:2] == ["discard", "round_end"]
    assert s.round == 2


def test_the_round_goes_on_while_any_hand_holds_a_card() -> None:
    """RULES #20: an empty deck does not end the round; empty hands everywhere do."""
    s = position(R, hands={0: ["piano"], 3: ["jewels"]})
    s, events = apply(s, act.discard(PIANO))
    assert "round_end" not in types(events)
    assert s.to_act == 3
    s, events = apply(s, act.discard(JEWELS))
    assert types(events)[:3] == ["discard", "round_end", "round_start"]
    assert s.round == 2


def test_the_round_ends_when_the_last_card_forms_a_set() -> None:
    """RULES #20: whatever the last action is, the round ends with the last card."""
    s = position(R, hands={2: ["cabin", "gold"]}, stacks={2: [["piano", "piano"]]}, to_act=2)
    s, events = apply(s, act.pair(CABIN, GOLD))
    assert round_end(events)["scores"] == [0, 0, 80_000, 0]


@pytest.mark.parametrize("action", [act.PASS_ACTION, act.END_TURN_ACTION, act.CONCEDE_ACTION])
def test_a_player_on_turn_may_not_pass(action: int) -> None:
    """RULES #20: passing is not allowed; you must discard if you cannot pair or steal."""
    s = position(R, hands={0: ["piano", "cabin"], 1: ["jewels"]})
    assert action not in legal_actions(s)
    with pytest.raises(IllegalAction) as err:
        apply(s, action)
    assert err.value.code == "wrong_decision"


def test_discarding_any_held_card_is_always_legal() -> None:
    """RULES #20: the discard action is always open, even beside a pair and a challenge."""
    s = position(
        R,
        hands={0: ["piano", "piano", "gold", "jewels"]},
        stacks={0: [["cabin", "cabin"]], 1: [["scooter", "scooter"], ["piano", "silver"]]},
        discard=["jewels"],
    )
    listed = legal_actions(s)
    assert {act.discard(c) for c in (PIANO, GOLD, JEWELS)} <= set(listed)
    assert any(act.action_type(a) == act.CHALLENGE for a in listed)


def test_unused_draft_pile_cards_are_not_scored_and_do_not_extend_the_round() -> None:
    """RULES #20, #37: the round ends when the deck and hands are empty; draft-pile cards
    left over are simply not scored."""
    rules = RuleSet(seats=2)
    s = position(
        rules,
        hands={0: ["piano"]},
        stacks={1: [["jewels", "jewels"]]},
        piles=[["gold", "gold"], ["silver"], ["cabin"]],
    )
    assert rules.uses_draft_piles
    s, events = apply(s, act.discard(PIANO))
    assert round_end(events)["scores"] == [0, 20_000]


# --- RULES #21: the server refills --------------------------------------------------------


def test_the_engine_refills_the_hand_itself_at_the_end_of_a_turn() -> None:
    """RULES #21: online there is no "forgot to draw": the refill is part of the turn,
    and no player action draws a card."""
    s = position(R, hands={0: ["piano", "cabin", "cabin", "jewels", "jewels"]}, deck=["gold"] * 3)
    s, events = apply(s, act.discard(PIANO))
    assert types(events) == ["discard", "draw"]
    assert (events[1]["seat"], events[1]["count"]) == (0, 1)
    assert s.hands[0].size == 5
    assert "draw" not in act.TYPE_NAMES


# --- RULES #25: what scores ---------------------------------------------------------------


def test_a_round_scores_the_face_value_of_every_card_in_each_stack() -> None:
    """RULES #25: every stack card counts, wilds at face value ($25k Silver, $50k Gold)."""
    s = last_card(
        stacks={
            1: [["cabin", "gold"], ["piano", "piano", "silver"]],
            2: [["jewels", "jewels"]],
        }
    )
    s, events = apply(s, act.discard(0))
    assert round_end(events)["scores"] == [0, 105_000, 20_000, 0]
    assert s.scores == ((0, 105_000, 20_000, 0),)


def test_the_discard_pile_scores_nothing() -> None:
    """RULES #25: cards left on the discard pile belong to nobody."""
    s = last_card(stacks={1: [["piano", "piano"]]}, discard=["gold", "gold", "silver"])
    s, events = apply(s, act.discard(0))
    assert round_end(events)["scores"] == [0, 10_000, 0, 0]


def test_removed_action_cards_score_nothing() -> None:
    """RULES #25, #32: a used Swap or Move is out of play and worth $0."""
    s = last_card(stacks={1: [["piano", "piano"]]})
    s.removed = (SWAP, MOVE)
    s, events = apply(s, act.discard(0))
    assert round_end(events)["scores"] == [0, 10_000, 0, 0]


@pytest.mark.parametrize(("edition", "score"), [("2011", 30_000), ("2021", 20_000)])
def test_a_stack_scores_with_its_own_editions_values(edition: str, score: int) -> None:
    """RULES #25, section 1: a Jewels pair is $30k in 2011 and $20k in 2021."""
    rules = RuleSet(edition=edition)
    s = last_card(rules, stacks={1: [["jewels", "jewels"]]})
    s, events = apply(s, act.discard(0))
    assert round_end(events)["scores"][1] == score


def test_round_scores_add_to_the_running_tallies() -> None:
    """RULES #22, #25: each round's score is added to the seat's running total."""
    s = last_card(stacks={1: [["cabin", "gold"]]}, tallies=[300_000, 200_000, 0, 50_000])
    s, events = apply(s, act.discard(0))
    assert s.tallies == (300_000, 270_000, 0, 50_000)
    assert round_end(events)["tallies"] == [300_000, 270_000, 0, 50_000]


def test_every_hand_is_empty_when_a_round_is_scored() -> None:
    """RULES #25: hands are empty at round end, so no hand card is ever scored."""
    s = position(R, hands={0: ["piano"], 1: ["gold"]}, stacks={1: [["piano", "piano"]]})
    s, events = apply(s, act.discard(PIANO))
    assert "round_end" not in types(events)
    s, events = apply(s, act.discard(GOLD))
    assert round_end(events)["scores"] == [0, 10_000, 0, 0]
