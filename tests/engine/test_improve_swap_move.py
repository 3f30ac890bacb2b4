"""Improve a Set, Swap and Move, and action cards in general (RULES #29-32, 2.8.7).

Every test plays from an exact position: seat 0 is on turn, the other seats' stacks are
the targets.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions
from games.engine import actions as act
from games.engine.actions import BOTTOM_TO_TOP, TOP_TO_BOTTOM
from games.engine.cards import MOVE, NO_CARD, SWAP
from games.engine.state import DEFEND, SECOND_ACTION, TURN
from tests.engine.builders import ids, position

ADV = RuleSet.preset("2021", advanced={"improve_set": True, "action_cards": True})
ADV_TWO = RuleSet.preset(
    "2021", advanced={"improve_set": True, "action_cards": True, "two_actions": True}
)
NO_BOTTOM_SWAP = ADV.with_options(swap_may_take_bottom_set=False)
COMIC, PIANO, JEWELS, SCOOTER, CABIN, SILVER, GOLD = ids(
    ADV, ["comic_books", "piano", "jewels", "scooter", "cabin", "silver", "gold"]
)


def table(
    rules: RuleSet,
    hand: list[str],
    mine: list[list[str]],
    *,
    discard: Sequence[str] = (),
) -> State:
    """Seat 0 to act with this hand and stack; seat 1 owns two sets, seat 2 a lone first
    set, seat 3 none."""
    return position(
        rules,
        hands={0: hand, 1: ["comic_books"], 2: ["comic_books"], 3: ["comic_books"]},
        stacks={
            0: mine,
            1: [["jewels", "jewels"], ["scooter", "scooter"]],
            2: [["comic_books", "comic_books"]],
        },
        discard=discard,
        deck=["toy_train"] * 20,
    )


def kinds(state: State, seat: int) -> list[int]:
    return [st.kind for st in state.stacks[seat]]


def of_type(state: State, kind: int) -> set[int]:
    return {a for a in legal_actions(state) if a >> 20 == kind}


def refused(state: State, action: int) -> str:
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    return info.value.code


# --- Improve a Set (RULES #29) -----------------------------------------------------------


def test_improve_adds_one_matching_asset_to_the_own_top_set() -> None:
    """RULES #29: "Add one asset to your top set. It must match the existing set"."""
    s = table(ADV, ["piano", "piano", "jewels"], [["cabin", "cabin"], ["piano", "piano"]])
    assert of_type(s, act.IMPROVE) == {act.improve(PIANO)}
    s, events = apply(s, act.improve(PIANO))
    assert events[0] == {"type": "improve", "seat": 0, "card": "piano"}
    assert [st.cards for st in s.stacks[0]] == [(CABIN, CABIN), (PIANO, PIANO, PIANO)]


def test_improve_is_allowed_on_a_lone_bottom_set() -> None:
    """RULES #29: a lone bottom set is the top set, so it may be improved."""
    s = table(ADV, ["piano"], [["piano", "piano"]])
    assert act.improve(PIANO) in legal_actions(s)
    s, _ = apply(s, act.improve(PIANO))
    assert [st.cards for st in s.stacks[0]] == [(PIANO, PIANO, PIANO)]


def test_improve_never_adds_a_wild() -> None:
    """RULES #29: the added card "cannot be Wild"."""
    s = table(ADV, ["silver", "gold", "jewels"], [["piano", "piano"]])
    assert of_type(s, act.IMPROVE) == set()
    assert refused(s, act.improve(SILVER)) == "card_does_not_match"
    assert refused(s, act.improve(JEWELS)) == "card_does_not_match"


def test_improve_reaches_only_the_top_set() -> None:
    """RULES #29: only the top set grows, never a set below it."""
    s = table(ADV, ["piano"], [["piano", "piano"], ["jewels", "jewels"]])
    assert of_type(s, act.IMPROVE) == set()


def test_improve_is_an_action_that_ends_a_one_action_turn() -> None:
    """RULES #29: Improve is an action: the turn ends (with a refill) or goes on to the
    second action under two actions (RULES #26)."""
    s, _ = apply(table(ADV, ["piano", "jewels"], [["piano", "piano"]]), act.improve(PIANO))
    assert (s.to_act, s.kind, s.hands[0].size) == (1, TURN, 5)
    s, _ = apply(table(ADV_TWO, ["piano", "jewels"], [["piano", "piano"]]), act.improve(PIANO))
    assert (s.to_act, s.kind) == (0, SECOND_ACTION)


def test_improve_is_off_without_the_switch() -> None:
    """RULES #29: an advanced rule on its own switch."""
    s = table(RuleSet.preset("2021"), ["piano"], [["piano", "piano"]])
    assert of_type(s, act.IMPROVE) == set()
    assert refused(s, act.improve(PIANO)) == "rule_disabled"


# --- Swap (RULES #30, 2.8.7) -------------------------------------------------------------


def test_swap_exchanges_the_own_top_set_with_another_players_top_set() -> None:
    """RULES #30: "Swap the top set in your stack with the top set of any other player"."""
    s = table(ADV, ["swap", "jewels"], [["cabin", "cabin"], ["piano", "piano"]])
    assert of_type(s, act.SWAP) == {act.swap(1), act.swap(2)}  # seat 3 has no set
    s, events = apply(s, act.swap(1))
    assert events[0] == {"type": "swap", "seat": 0, "target": 1}
    assert kinds(s, 0) == [CABIN, SCOOTER]
    assert kinds(s, 1) == [JEWELS, PIANO]


def test_swap_may_take_a_lone_first_set() -> None:
    """RULES #30: "Auch ein 'erstes Set' darf getauscht werden" (the default)."""
    s = table(ADV, ["swap"], [["cabin", "cabin"], ["piano", "piano"]])
    s, _ = apply(s, act.swap(2))
    assert kinds(s, 0) == [CABIN, COMIC]
    assert kinds(s, 2) == [PIANO]


def test_swap_may_give_away_the_own_lone_set() -> None:
    """RULES #30: the player's own one-set stack may be swapped too."""
    s = table(ADV, ["swap"], [["piano", "piano"]])
    s, _ = apply(s, act.swap(1))
    assert kinds(s, 0) == [SCOOTER]
    assert kinds(s, 1) == [JEWELS, PIANO]


def test_swap_needs_the_player_to_own_a_set() -> None:
    """RULES #30: the player must own a set to have a top set to swap."""
    s = table(ADV, ["swap", "jewels"], [])
    assert of_type(s, act.SWAP) == set()
    with pytest.raises(IllegalAction):
        apply(s, act.swap(1))


def test_without_swap_may_take_bottom_set_the_target_needs_two_sets() -> None:
    """RULES 2.8.7: ``swap_may_take_bottom_set=False`` requires the target to have two sets;
    the player's own lone set may still be swapped."""
    s = table(NO_BOTTOM_SWAP, ["swap"], [["piano", "piano"]])
    assert of_type(s, act.SWAP) == {act.swap(1)}
    assert refused(s, act.swap(2)) == "invalid_target"
    s, _ = apply(s, act.swap(1))
    assert kinds(s, 0) == [SCOOTER]


# --- Move (RULES #31) --------------------------------------------------------------------


def test_move_needs_a_target_with_two_sets_and_may_target_the_own_stack() -> None:
    """RULES #31: any player's stack, own included, in both directions; a one-set stack is
    never a target (it would be a no-op)."""
    s = table(ADV, ["move"], [["cabin", "cabin"], ["piano", "piano"]])
    assert of_type(s, act.MOVE) == {
        act.move(seat, direction) for seat in (0, 1) for direction in (TOP_TO_BOTTOM, BOTTOM_TO_TOP)
    }
    assert refused(s, act.move(2, TOP_TO_BOTTOM)) == "invalid_target"


def test_move_needs_no_set_of_the_players_own() -> None:
    """RULES #31: "Move the top set of any player's stack"; the mover needs no set."""
    s = table(ADV, ["move"], [])
    assert of_type(s, act.MOVE) == {act.move(1, TOP_TO_BOTTOM), act.move(1, BOTTOM_TO_TOP)}


def test_move_puts_the_top_set_at_the_bottom() -> None:
    """RULES #31: top set to the bottom."""
    s = table(ADV, ["move"], [["cabin", "cabin"], ["piano", "piano"], ["jewels", "jewels"]])
    s, events = apply(s, act.move(0, TOP_TO_BOTTOM))
    assert events[0] == {"type": "move", "seat": 0, "target": 0, "direction": "top_to_bottom"}
    assert kinds(s, 0) == [JEWELS, CABIN, PIANO]


def test_move_puts_the_bottom_set_on_top() -> None:
    """RULES #31: the bottom set to the top."""
    s = table(ADV, ["move"], [["cabin", "cabin"], ["piano", "piano"], ["jewels", "jewels"]])
    s, _ = apply(s, act.move(0, BOTTOM_TO_TOP))
    assert kinds(s, 0) == [PIANO, JEWELS, CABIN]
    s2, _ = apply(table(ADV, ["move"], []), act.move(1, BOTTOM_TO_TOP))
    assert kinds(s2, 1) == [SCOOTER, JEWELS]


# --- action cards (RULES #32) ------------------------------------------------------------


@pytest.mark.parametrize("played", [act.swap(1), act.move(1, TOP_TO_BOTTOM)])
def test_action_cards_cannot_be_blocked_and_leave_play_once_used(played: int) -> None:
    """RULES #32: "You may not block these cards"; "removed from play once used"."""
    s = table(ADV, ["swap", "move"], [["piano", "piano"]])
    s, events = apply(s, played)
    assert [e["type"] for e in events][:2] == [
        ("swap" if played >> 20 == act.SWAP else "move"),
        "draw",
    ]
    assert s.challenge is None
    assert s.kind != DEFEND
    assert (s.to_act, s.kind) == (1, TURN)
    assert s.removed == ((SWAP,) if played >> 20 == act.SWAP else (MOVE,))
    assert s.discard_pile == ()


@pytest.mark.parametrize("card", ["swap", "move"])
def test_a_discarded_action_card_is_removed_from_play(card: str) -> None:
    """RULES #32: discarding an action card is the Discard action; the card leaves play
    instead of going on the discard pile."""
    s = table(ADV, [card, "jewels"], [], discard=["piano"])
    (cid,) = ids(ADV, [card])
    s, events = apply(s, act.discard(cid))
    assert events[0] == {"type": "discard", "seat": 0, "card": card, "removed": True}
    assert s.removed == (cid,)
    assert s.discard_pile == (PIANO,)


def test_action_cards_are_worth_nothing() -> None:
    """RULES #32, 1.2: Swap and Move are worth $0."""
    edition = ADV.edition_data
    assert edition.card("swap").value == edition.card("move").value == 0


def test_action_cards_never_pair_and_never_challenge() -> None:
    """RULES #32: an action card never forms a set, even with the discard top, and is never
    a challenge card."""
    s = table(ADV, ["swap", "move", "piano", "silver"], [["cabin", "cabin"]], discard=["move"])
    for a in legal_actions(s):
        kind, x, y = a >> 20, (a >> 16) & 15, (a >> 12) & 15
        if kind not in (act.DISCARD, act.SWAP, act.MOVE):
            assert not {x, y} & {SWAP, MOVE}, act.describe(a, "2021")
    assert of_type(s, act.PAIR_DISCARD) == set()  # an action card on the discard pairs with nothing
    assert of_type(s, act.PAIR) == {act.pair(PIANO, SILVER)}
    assert refused(s, act.challenge(1, (SWAP,))) == "card_does_not_match"
    assert act.pack(act.PAIR, PIANO, SWAP) not in legal_actions(s)
    on_asset = table(ADV, ["swap", "move", "jewels"], [["cabin", "cabin"]], discard=["piano"])
    assert of_type(on_asset, act.PAIR_DISCARD) == set()  # nor does one from hand
    assert refused(on_asset, act.pack(act.PAIR_DISCARD, SWAP, NO_CARD)) == "discard_mismatch"


def test_an_action_card_held_at_round_end_is_discarded_out_of_play() -> None:
    """RULES #32, #20: with the deck gone a last action card must be discarded; it leaves
    play and scores nothing."""
    rules = ADV.with_options(ending="quick")
    s = position(rules, hands={0: ["move"]}, stacks={0: [["piano", "piano"]]})
    assert legal_actions(s) == (act.discard(MOVE),)
    s, events = apply(s, act.discard(MOVE))
    end = next(e for e in events if e["type"] == "round_end")
    assert end["scores"] == [10_000, 0, 0, 0]
    assert s.over


# --- Swap and Move each on its own switch (RULES #2, #30-32) -------------------------------

SWAP_ONLY = RuleSet.preset("2021", advanced={"swap": True})
MOVE_ONLY = RuleSet.preset("2021", advanced={"move": True})


def test_a_swap_only_deck_plays_swap_and_refuses_move() -> None:
    """RULES #30-32: Swap on its own switch; Move stays out of play."""
    s = table(SWAP_ONLY, ["swap", "move"], [["cabin", "cabin"], ["piano", "piano"]])
    assert of_type(s, act.SWAP) == {act.swap(1), act.swap(2)}
    assert of_type(s, act.MOVE) == set()
    assert refused(s, act.move(1, TOP_TO_BOTTOM)) == "rule_disabled"


def test_a_move_only_deck_plays_move_and_refuses_swap() -> None:
    """RULES #30-32: Move on its own switch; Swap stays out of play."""
    s = table(MOVE_ONLY, ["swap", "move"], [["cabin", "cabin"], ["piano", "piano"]])
    assert of_type(s, act.SWAP) == set()
    assert act.move(1, TOP_TO_BOTTOM) in of_type(s, act.MOVE)
    assert refused(s, act.swap(1)) == "rule_disabled"


def test_the_grouped_switch_is_both_cards_at_once() -> None:
    """The grouped switch (``action_cards``) stays, as the two switches together."""
    both = RuleSet.preset("2021", advanced={"swap": True, "move": True})
    grouped = RuleSet.preset("2021", advanced={"action_cards": True})
    assert sorted(both.deck()) == sorted(grouped.deck())
    s = table(both, ["swap", "move"], [["cabin", "cabin"], ["piano", "piano"]])
    g = table(grouped, ["swap", "move"], [["cabin", "cabin"], ["piano", "piano"]])
    assert legal_actions(s) == legal_actions(g)
