"""Forming sets: from hand, with the discard top, and what others see of them.

RULES #6 (wilds and the discard pile), #7 (two cards per new set), #8 (a set's kind is
its asset), #9 and 2.8.11 (tucked cards stay hidden).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import IllegalAction, RuleSet, State, action_from_json, apply, legal_actions
from games.engine import actions as act
from games.engine import observe as observe_state
from games.engine.cards import GOLD, SILVER
from tests.engine.builders import ids, make_set, position

R = RuleSet()
PIANO, TOY_TRAIN, JEWELS, CABIN = ids(R, ["piano", "toy_train", "jewels", "cabin"])
DECK = ["scooter"] * 10


def c(card: str) -> int:
    """A 2021 card id by key."""
    return ids(R, [card])[0]


def discard_partners(s: State) -> set[str]:
    """The hand cards that may pair with the discard top right now."""
    keys = s.rules.edition_data.keys
    return {
        keys[act.unpack(a)[1]] for a in legal_actions(s) if act.action_type(a) == act.PAIR_DISCARD
    }


def refused(s: State, action: int) -> str:
    """The error code apply gives for an action that is not legal here."""
    assert action not in legal_actions(s), act.describe(action, s.rules.edition)
    with pytest.raises(IllegalAction) as err:
        apply(s, action)
    return err.value.code


def stack_view(s: State, viewer: int, owner: int) -> list[dict[str, Any]]:
    """The sets of ``owner`` as ``viewer`` observes them."""
    stacks: list[list[dict[str, Any]]] = observe_state(s, viewer)["stacks"]
    return stacks[owner]


HAND = ["piano", "gold", "toy_train", "toy_train", "cabin"]


# --- RULES #6: wilds and the discard pile ---------------------------------------------


@pytest.mark.parametrize(
    ("option", "top", "partners"),
    [
        ("both", "jewels", {"gold"}),
        ("both", "piano", {"piano", "gold"}),
        ("both", "silver", {"piano", "toy_train", "cabin"}),
        ("hand_wild_only", "jewels", {"gold"}),
        ("hand_wild_only", "piano", {"piano", "gold"}),
        ("hand_wild_only", "silver", set()),
        ("none", "jewels", set()),
        ("none", "piano", {"piano"}),
        ("none", "silver", set()),
    ],
)
def test_discard_pair_wild_decides_which_wild_pairings_with_the_discard_top_are_legal(
    option: str, top: str, partners: set[str]
) -> None:
    """RULES #6: ``both`` (default) allows a hand wild on a discarded asset and a hand
    asset on a discarded wild; ``hand_wild_only`` only the first; ``none`` neither.
    An identical asset always pairs."""
    s = position(R.with_options(discard_pair_wild=option), hands={0: HAND}, discard=[top])
    assert discard_partners(s) == partners


@pytest.mark.parametrize(
    ("option", "card", "top"),
    [
        ("hand_wild_only", "piano", "silver"),
        ("none", "piano", "silver"),
        ("none", "gold", "jewels"),
        ("both", "cabin", "jewels"),
    ],
)
def test_a_pairing_the_option_forbids_is_refused_as_a_discard_mismatch(
    option: str, card: str, top: str
) -> None:
    """RULES #6: an excluded pairing raises ``discard_mismatch``."""
    s = position(R.with_options(discard_pair_wild=option), hands={0: HAND}, discard=[top])
    assert refused(s, act.pair_discard(c(card))) == "discard_mismatch"


@pytest.mark.parametrize("option", ["both", "hand_wild_only", "none"])
def test_two_wilds_never_pair_with_the_discard_pile(option: str) -> None:
    """RULES #6: never wild + wild, whatever the option."""
    hand = ["gold", "silver", "piano", "jewels", "cabin"]
    s = position(R.with_options(discard_pair_wild=option), hands={0: hand}, discard=["silver"])
    assert not discard_partners(s) & {"gold", "silver"}
    assert refused(s, act.pair_discard(GOLD)) == "discard_mismatch"


def test_only_the_top_card_of_the_discard_pile_pairs() -> None:
    """RULES #6: a match buried under the top card cannot be taken."""
    s = position(
        R, hands={0: ["piano", "jewels", "jewels", "cabin", "cabin"]}, discard=["piano", "scooter"]
    )
    assert discard_partners(s) == set()
    assert refused(s, act.pair_discard(PIANO)) == "discard_mismatch"


def test_a_hand_wild_on_a_discarded_asset_forms_a_set_of_that_asset() -> None:
    """RULES #6 ``both``: Gold from hand takes the discarded Jewels; the pile shrinks."""
    s = position(R, hands={0: HAND}, discard=["piano", "jewels"], deck=DECK)
    s, events = apply(s, act.pair_discard(GOLD))
    top = s.stacks[0][-1]
    assert (top.kind, top.cards) == (JEWELS, (JEWELS, GOLD))
    assert s.discard_pile == (PIANO,)
    assert events[0]["taken"] == "jewels"


def test_a_hand_asset_on_a_discarded_wild_forms_a_set_of_the_hand_asset() -> None:
    """RULES #6 ``both``, #8: Toy Train from hand takes the discarded Silver; the set is a
    Toy Train set, with the asset on top."""
    s = position(R, hands={0: HAND}, discard=["silver"], deck=DECK)
    s, _ = apply(s, act.pair_discard(TOY_TRAIN))
    top = s.stacks[0][-1]
    assert (top.kind, top.cards) == (TOY_TRAIN, (TOY_TRAIN, SILVER))
    assert s.discard_pile == ()


# --- RULES #7: two cards per new set --------------------------------------------------


def test_pairing_three_identical_assets_makes_a_two_card_set_and_keeps_the_third() -> None:
    """RULES #7: only 2 cards per new set, even holding three of a kind."""
    s = position(R, hands={0: ["piano", "piano", "piano", "jewels", "cabin"]}, deck=DECK)
    s, _ = apply(s, act.pair(PIANO, PIANO))
    assert s.stacks[0][-1].cards == (PIANO, PIANO)
    assert s.hands[0].counts[PIANO] == 1


def test_a_new_set_never_merges_with_an_older_set_of_the_same_asset() -> None:
    """RULES #7: a second Piano set lands as its own set on top of the first."""
    s = position(
        R,
        hands={0: ["piano", "piano", "jewels", "cabin", "scooter"]},
        stacks={0: [["cabin", "cabin"], ["piano", "gold"]]},
        discard=["piano"],
        deck=DECK,
    )
    s, _ = apply(s, act.pair(PIANO, PIANO))
    assert [st.cards for st in s.stacks[0]] == [(CABIN, CABIN), (PIANO, GOLD), (PIANO, PIANO)]


def test_pairing_with_the_discard_top_makes_a_two_card_set() -> None:
    """RULES #7: a twin on the discard joins one hand card, never more."""
    s = position(
        R, hands={0: ["piano", "piano", "piano", "jewels", "cabin"]}, discard=["piano"], deck=DECK
    )
    s, _ = apply(s, act.pair_discard(PIANO))
    assert s.stacks[0][-1].cards == (PIANO, PIANO)
    assert s.hands[0].counts[PIANO] == 2


def test_every_listed_set_forming_action_uses_exactly_two_cards() -> None:
    """RULES #7: no action forms a set of three or more from hand."""
    s = position(R, hands={0: ["piano", "piano", "piano", "gold", "silver"]}, discard=["piano"])
    forming = [a for a in legal_actions(s) if act.action_type(a) in (act.PAIR, act.PAIR_DISCARD)]
    assert forming
    for a in forming:
        taken = 1 if act.action_type(a) == act.PAIR_DISCARD else 0
        assert len(act.cards_of(a)) + taken == 2


@pytest.mark.parametrize(
    ("first", "second"), [("piano", "jewels"), ("silver", "gold"), ("gold", "gold")]
)
def test_two_different_assets_or_two_wilds_are_not_a_set(first: str, second: str) -> None:
    """RULES #7, #8: a set is an asset with its twin or with one wild."""
    s = position(R, hands={0: ["piano", "jewels", "silver", "gold", "gold"]})
    bad = act.pack(act.PAIR, c(first), c(second))
    assert refused(s, bad) == "invalid_set"


# --- RULES #8: a set's kind is its asset ----------------------------------------------


def test_a_set_of_an_asset_and_a_wild_is_a_set_of_that_asset_shown_on_top() -> None:
    """RULES #8: the asset defines the set and shows; a wild never does."""
    s = position(R, hands={0: HAND}, deck=DECK)
    s, events = apply(s, act.pair(CABIN, GOLD))
    top = s.stacks[0][-1]
    assert (top.kind, top.cards[0]) == (CABIN, CABIN)
    assert events[0]["kind"] == "cabin"
    assert stack_view(s, 1, 0)[0]["kind"] == "cabin"


def test_a_pair_led_by_a_wild_is_refused() -> None:
    """RULES #8: a wild cannot define a set, so a pair must name its asset first."""
    s = position(R, hands={0: HAND})
    assert refused(s, act.pack(act.PAIR, GOLD, CABIN)) == "invalid_set"
    assert act.pair(CABIN, GOLD) in legal_actions(s)


def test_json_pair_puts_the_asset_first_whatever_order_it_is_given_in() -> None:
    """RULES #8: the readable action form normalises to the asset leading the set."""
    parsed = action_from_json({"type": "pair", "cards": ["gold", "cabin"]}, "2021")
    assert parsed == act.pair(CABIN, GOLD)


def test_a_set_grown_by_wild_challenge_cards_keeps_its_asset_kind() -> None:
    """RULES #8: wilds added in a challenge never change what the set is."""
    s = position(
        R,
        hands={0: ["gold", "jewels", "jewels", "jewels", "jewels"], 1: ["cabin"] * 5},
        stacks={0: [["jewels", "jewels"]], 1: [["cabin", "cabin"], ["piano", "piano"]]},
        deck=DECK,
    )
    s, _ = apply(s, act.challenge(1, (GOLD,)))
    s, _ = apply(s, act.CONCEDE_ACTION)
    won = s.stacks[0][-1]
    assert (won.kind, won.cards) == (PIANO, (PIANO, PIANO, GOLD))


# --- RULES #9, 2.8.11: tucked cards ---------------------------------------------------


def test_the_second_card_of_a_pair_from_hand_is_hidden_from_other_seats() -> None:
    """RULES #9, 2.8.11: others see the kind and the card count, not the tucked wild;
    the owner sees the whole set."""
    s = position(R, hands={0: HAND}, deck=DECK)
    s, events = apply(s, act.pair(CABIN, GOLD))
    assert events[0]["cards"] == ["cabin", None]
    theirs = stack_view(s, 1, 0)[0]
    assert (theirs["count"], theirs["cards"], theirs["known_value"]) == (2, ["cabin", None], 20_000)
    mine = stack_view(s, 0, 0)[0]
    assert (mine["cards"], mine["known_value"]) == (["cabin", "gold"], 70_000)


def test_a_twin_is_tucked_like_a_wild_so_the_two_look_alike() -> None:
    """RULES #9, 2.8.11: the second card of any pair from hand is tucked, so a hidden
    Gold cannot be told from a hidden twin."""
    s = position(R, hands={0: ["toy_train", "toy_train", "piano", "gold", "cabin"]}, deck=DECK)
    s, events = apply(s, act.pair(TOY_TRAIN, TOY_TRAIN))
    assert events[0]["cards"] == ["toy_train", None]
    assert stack_view(s, 2, 0)[0]["cards"] == ["toy_train", None]


def test_the_hand_card_paired_with_a_discarded_asset_is_tucked() -> None:
    """RULES 2.8.11: the asset taken from the discard is public, the hand card is not."""
    s = position(R, hands={0: HAND}, discard=["jewels"], deck=DECK)
    s, events = apply(s, act.pair_discard(GOLD))
    assert (events[0]["taken"], events[0]["cards"]) == ("jewels", ["jewels", None])
    assert stack_view(s, 3, 0)[0]["cards"] == ["jewels", None]
    assert stack_view(s, 0, 0)[0]["cards"] == ["jewels", "gold"]


def test_a_wild_taken_from_the_discard_pile_is_public() -> None:
    """RULES 2.8.11: a Silver taken from the discard and the hand asset both show."""
    s = position(R, hands={0: HAND}, discard=["silver"], deck=DECK)
    s, events = apply(s, act.pair_discard(PIANO))
    assert events[0]["cards"] == ["piano", "silver"]
    assert stack_view(s, 1, 0)[0]["cards"] == ["piano", "silver"]


def test_with_hide_tucked_wilds_off_every_set_card_is_public() -> None:
    """RULES #9 ``hide_tucked_wilds=False``: pairs show both cards to everyone."""
    rules = R.with_options(hide_tucked_wilds=False)
    s = position(rules, hands={0: HAND, 1: HAND}, discard=["jewels"], deck=DECK)
    s, events = apply(s, act.pair(CABIN, GOLD))
    assert events[0]["cards"] == ["cabin", "gold"]
    s, events = apply(s, act.pair_discard(GOLD))
    assert events[0]["cards"] == ["jewels", "gold"]
    for viewer in (0, 2):
        assert stack_view(s, viewer, 0)[0]["cards"] == ["cabin", "gold"]
        assert stack_view(s, viewer, 1)[0]["cards"] == ["jewels", "gold"]


def test_a_stolen_tucked_card_is_seen_by_its_new_owner_only() -> None:
    """RULES #9, 2.8.11: winning a set shows its tucked card to the winner; a third seat
    still sees only the public cards (the challenge cards are public)."""
    tucked = make_set(R, ["piano", "gold"], tucked=1, knowers=1 << 1)
    s = position(
        R,
        hands={0: ["piano", "jewels", "jewels", "cabin", "cabin"], 1: ["cabin"] * 5},
        stacks={0: [["jewels", "jewels"]], 1: [["cabin", "cabin"], tucked]},
        deck=DECK,
    )
    assert stack_view(s, 0, 1)[1]["cards"] == ["piano", None]
    s, _ = apply(s, act.challenge(1, (PIANO,)))
    s, _ = apply(s, act.CONCEDE_ACTION)
    assert stack_view(s, 0, 0)[1]["cards"] == ["piano", "gold", "piano"]
    assert stack_view(s, 2, 0)[1]["cards"] == ["piano", None, "piano"]


def test_the_seat_that_tucked_a_card_still_sees_it_once_its_set_is_stolen() -> None:
    """RULES #9, 2.8.11: every seat that once held a set sees its tucked card, the one
    that formed it too; the seats that never held it see only the public cards."""
    s = position(
        R,
        hands={1: ["piano", "gold", "cabin"], 2: ["piano", "cabin"]},
        stacks={1: [["cabin", "cabin"]], 2: [["jewels", "jewels"]]},
        deck=DECK,
        to_act=1,
    )
    s, _ = apply(s, act.pair(PIANO, GOLD))
    assert stack_view(s, 1, 1)[1]["cards"] == ["piano", "gold"]
    assert stack_view(s, 2, 1)[1]["cards"] == ["piano", None]
    assert s.to_act == 2
    s, _ = apply(s, act.challenge(1, (PIANO,)))
    s, _ = apply(s, act.CONCEDE_ACTION)
    assert stack_view(s, 2, 2)[1]["cards"] == ["piano", "gold", "piano"]
    assert stack_view(s, 1, 2)[1]["cards"] == ["piano", "gold", "piano"]
    for stranger in (0, 3):
        assert stack_view(s, stranger, 2)[1]["cards"] == ["piano", None, "piano"]


def test_tucked_cards_are_revealed_at_round_end_scoring() -> None:
    """RULES #9: a tucked card stays hidden until the round's scoring shows every stack."""
    s = position(R, hands={0: ["cabin", "gold"]})
    s, events = apply(s, act.pair(CABIN, GOLD))
    end = next(e for e in events if e["type"] == "round_end")
    assert end["stacks"][0] == [{"kind": "cabin", "cards": ["cabin", "gold"]}]
    assert end["scores"][0] == 70_000
