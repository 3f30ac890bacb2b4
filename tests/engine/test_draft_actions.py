"""Swap and Move revealed in the draft piles, and the flips (RULES #36, 2.8.5, 2.8.6).

Piles are written bottom first: the last card is the face-up top, the one before it is
what the next flip reveals. Where a returned Swap lands is seeded from the game, so the
piles are built to force the outcome (a Swap returned into a one-card remainder always
goes under it).
"""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from games.engine import RuleSet, State, apply, legal_actions, new_game, observe
from games.engine import actions as act
from games.engine.actions import BOTTOM_TO_TOP, PASS_ACTION, TOP_TO_BOTTOM
from games.engine.cards import MOVE, SWAP
from games.engine.draft import settle_pile
from games.engine.rules import DRAFT_PILE_SIZE
from games.engine.state import MOVE_CHOICE, SECOND_ACTION, TURN
from tests.engine.builders import ids, position

TWO = RuleSet.preset("2021", seats=2, advanced={"action_cards": True})
TWO_ACTIONS = RuleSet.preset("2021", seats=2, advanced={"action_cards": True, "two_actions": True})
THREE = RuleSet.preset("2021", seats=3, advanced={"action_cards": True})
SCOOTER, PIANO, JEWELS, COMIC, TRAIN, CASH = ids(
    TWO, ["scooter", "piano", "jewels", "comic_books", "toy_train", "cash_under_the_mattress"]
)
Events = tuple[dict[str, Any], ...]


def run(state: State, *actions: int) -> tuple[State, Events]:
    out: list[dict[str, Any]] = []
    for a in actions:
        state, events = apply(state, a)
        out.extend(events)
    return state, tuple(out)


def after_draft(events: Events) -> list[tuple[Any, ...]]:
    """What happened once the draft was decided: the end, pile actions, Move choices, flips."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if e["type"] == "draft_end":
            out.append(("draft_end", e["winner"]))
        elif e["type"] == "pile_action":
            out.append(("pile_action", e["pile"], e["card"], e["effect"], tuple(e["seats"])))
        elif e["type"] == "choose_move":
            out.append(("choose_move", e["seat"], e["target"], e["direction"]))
        elif e["type"] == "reveal":
            out.append(("reveal", e["pile"], e["card"]))
    return out


def kinds(state: State, seat: int) -> list[int]:
    return [st.kind for st in state.stacks[seat]]


def two_player(
    pile_0: list[str],
    stacks: dict[int, list[list[str]]],
    *,
    rules: RuleSet = TWO,
    other_tops: tuple[str, str] = ("toy_train", "toy_train"),
    seed: int = 0,
) -> State:
    """Seat 0 on turn holding Scooters; seat 1 holds a card it cannot challenge with."""
    return position(
        rules,
        hands={0: ["scooter", "scooter", "piano"], 1: ["comic_books", "comic_books"]},
        stacks=stacks,
        piles=[pile_0, ["piano", other_tops[0]], ["piano", other_tops[1]]],
        deck=["cash_under_the_mattress"] * 30,
        seed=seed,
    )


# --- set-up (RULES #36, 2.8.6) -----------------------------------------------------------


def test_an_action_card_face_up_at_set_up_goes_below_the_top_until_a_non_action_shows() -> None:
    """RULES #36, 2.8.6: "placed face-down randomly in the middle of its draft pile and the
    next card ... is then revealed"."""
    for seed in range(20):
        pile = [PIANO, JEWELS, SWAP, MOVE, SWAP]
        settle_pile(pile, Random(seed))
        assert pile[-1] not in (SWAP, MOVE)
        assert sorted(pile) == sorted([PIANO, JEWELS, SWAP, MOVE, SWAP])


def test_no_dealt_draft_pile_shows_an_action_card() -> None:
    """RULES #36, 2.8.6: over many deals, every pile holds ten cards under a non-action top;
    hands and the discard flip come after the piles."""
    for seed in range(150):
        s = new_game(TWO, seed)
        assert [len(p) for p in s.piles] == [DRAFT_PILE_SIZE] * 3
        assert all(p[-1] not in (SWAP, MOVE) for p in s.piles), seed
        assert [h.size for h in s.hands] == [6, 6]
        assert len(s.discard_pile) == 1
        assert len(s.deck_left) == len(TWO.deck()) - 3 * DRAFT_PILE_SIZE - 12 - 1


def test_an_action_card_flipped_onto_the_discard_pile_is_never_replaced() -> None:
    """RULES 2.8.6, #3: the discard flip stays, even an action card, and pairs with nothing."""
    seed = next(seed for seed in range(2000) if new_game(TWO, seed).discard_pile[0] in (SWAP, MOVE))
    s = new_game(TWO, seed)
    assert len(s.discard_pile) == 1
    assert s.discard_pile[0] in (SWAP, MOVE)
    assert s.removed == ()
    assert not any(a >> 20 == act.PAIR_DISCARD for a in legal_actions(s))


# --- Swap revealed during play (RULES #36, 2.8.5) ----------------------------------------


def test_a_revealed_swap_exchanges_the_top_sets_once_the_drafted_set_has_landed() -> None:
    """RULES #36, 2.8.5: the Swap acts at once on both players' top sets; the drafter's
    first set has already landed, so it is the one swapped. The pile is then flipped again
    and the Swap leaves play; it is not the player's action."""
    s = two_player(["piano", "swap", "scooter"], {1: [["jewels", "jewels"]]})
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert after_draft(events) == [
        ("draft_end", 0),
        ("pile_action", 0, "swap", "swap", (0, 1)),
        ("reveal", 0, "piano"),
    ]
    assert kinds(s, 0) == [JEWELS]
    assert kinds(s, 1) == [SCOOTER]
    assert s.removed == (SWAP,)
    assert s.piles[0] == (PIANO,)
    assert (s.to_act, s.kind) == (1, TURN)


def test_a_revealed_action_card_does_not_use_up_an_action() -> None:
    """RULES #36: "Action cards revealed in a draft pile do not count as a player's action"."""
    s = two_player(["piano", "swap", "scooter"], {1: [["jewels", "jewels"]]}, rules=TWO_ACTIONS)
    s, _ = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert (s.to_act, s.kind, s.action_no) == (0, SECOND_ACTION, 2)


def test_a_revealed_swap_acts_between_the_two_players_beside_the_pile() -> None:
    """RULES #36: with three players, "the two players it rests between"."""
    s = position(
        THREE,
        hands={0: ["scooter", "piano"], 1: ["comic_books"], 2: ["comic_books"]},
        stacks={1: [["piano", "piano"]], 2: [["jewels", "jewels"]]},
        piles=[["piano", "piano"], ["piano", "piano"], ["piano", "swap", "scooter"]],
        deck=["cash_under_the_mattress"] * 30,
    )
    s, events = run(s, act.draft(SCOOTER, (2,)), PASS_ACTION)  # pile 2 lies between 2 and 0
    assert ("pile_action", 2, "swap", "swap", (0, 2)) in after_draft(events)
    assert kinds(s, 0) == [JEWELS]
    assert kinds(s, 2) == [SCOOTER]
    assert kinds(s, 1) == [PIANO]


def test_a_revealed_swap_goes_back_face_down_when_a_player_has_no_set() -> None:
    """RULES #36, 2.8.5: "If one, or both players, do not have a set, return the action
    card to the middle of the stack, face-down, and flip another card"."""
    s = two_player(["piano", "swap", "scooter"], {})
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert after_draft(events) == [
        ("draft_end", 0),
        ("pile_action", 0, "swap", "returned", ()),
        ("reveal", 0, "piano"),
    ]
    assert s.piles[0] == (SWAP, PIANO)  # below the new top
    assert s.removed == ()
    assert kinds(s, 0) == [SCOOTER]
    assert s.stacks[1] == ()


def test_a_returned_swap_goes_somewhere_below_the_next_card() -> None:
    """RULES 2.8.5: "at a random place below the top"; the card under it is flipped next."""
    s = two_player(["piano", "jewels", "toy_train", "swap", "scooter"], {})
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert after_draft(events)[-1] == ("reveal", 0, "toy_train")
    assert s.piles[0][-1] == TRAIN
    assert sorted(s.piles[0]) == sorted((PIANO, JEWELS, TRAIN, SWAP))


def test_where_a_returned_swap_lands_is_random_but_the_same_in_a_replay() -> None:
    """RULES 2.8.5: any place below the new top, each of the three here in some game; the
    place is drawn from the game's seed, so a replay of the same actions puts it there
    again."""
    places = set()
    for seed in range(30):
        s = two_player(["piano", "jewels", "toy_train", "swap", "scooter"], {}, seed=seed)
        after, _ = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
        again, _ = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
        assert again.piles[0] == after.piles[0]
        places.add(after.piles[0].index(SWAP))
    assert places == {0, 1, 2}


def test_a_revealed_swap_leaves_play_when_only_swaps_remain_in_its_pile() -> None:
    """RULES 2.8.5: "if only Swap cards remain in that pile it is removed from play"."""
    s = two_player(["swap", "swap", "scooter"], {})
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert after_draft(events) == [
        ("draft_end", 0),
        ("pile_action", 0, "swap", "removed", ()),
        ("pile_action", 0, "swap", "removed", ()),
    ]
    assert s.piles[0] == ()
    assert s.removed == (SWAP, SWAP)


# --- Move revealed during play (RULES #36, 2.8.5) ----------------------------------------


def test_a_revealed_move_is_chosen_by_the_drafter_for_the_other_player_first() -> None:
    """RULES #36, 2.8.5: "each decide whether their opponent must move their top set to the
    bottom or their bottom set to the top"; the drafter chooses first. The pile's next card
    stays face down until both have chosen."""
    s = two_player(
        ["toy_train", "move", "scooter"],
        {
            0: [["comic_books", "comic_books"], ["piano", "piano"]],
            1: [["jewels", "jewels"], ["cash_under_the_mattress", "cash_under_the_mattress"]],
        },
    )
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert after_draft(events) == [("draft_end", 0), ("pile_action", 0, "move", "move", (0, 1))]
    assert (s.to_act, s.kind) == (0, MOVE_CHOICE)
    assert set(legal_actions(s)) == {act.choose_move(TOP_TO_BOTTOM), act.choose_move(BOTTOM_TO_TOP)}
    assert observe(s, 1)["draft_piles"][0]["top"] is None

    s, events = run(s, act.choose_move(TOP_TO_BOTTOM))
    assert after_draft(events) == [("choose_move", 0, 1, "top_to_bottom")]
    assert kinds(s, 1) == [CASH, JEWELS]
    assert (s.to_act, s.kind) == (1, MOVE_CHOICE)

    s, events = run(s, act.choose_move(BOTTOM_TO_TOP))
    assert after_draft(events) == [
        ("choose_move", 1, 0, "bottom_to_top"),
        ("reveal", 0, "toy_train"),
    ]
    assert kinds(s, 0) == [PIANO, SCOOTER, COMIC]
    assert s.removed == (MOVE,)
    assert (s.to_act, s.kind) == (1, TURN)


def test_a_revealed_move_is_chosen_by_the_two_players_beside_the_pile() -> None:
    """RULES #36: with three players the two players the pile rests between choose, the
    drafter first; the third stack is untouched."""
    two_sets = [["comic_books", "comic_books"], ["piano", "piano"]]
    s = position(
        THREE,
        hands={0: ["scooter", "piano"], 1: ["comic_books"], 2: ["comic_books"]},
        stacks={0: two_sets, 1: two_sets, 2: two_sets},
        piles=[["toy_train", "move", "scooter"], ["piano", "piano"], ["piano", "piano"]],
        deck=["cash_under_the_mattress"] * 30,
    )
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)  # pile 0 lies between 0 and 1
    assert ("pile_action", 0, "move", "move", (0, 1)) in after_draft(events)
    s, first = run(s, act.choose_move(TOP_TO_BOTTOM))
    s, second = run(s, act.choose_move(TOP_TO_BOTTOM))
    assert after_draft(first + second) == [
        ("choose_move", 0, 1, "top_to_bottom"),
        ("choose_move", 1, 0, "top_to_bottom"),
        ("reveal", 0, "toy_train"),
    ]
    assert kinds(s, 0) == [SCOOTER, COMIC, PIANO]
    assert kinds(s, 1) == [PIANO, COMIC]
    assert kinds(s, 2) == [COMIC, PIANO]


@pytest.mark.parametrize(
    ("stacks", "choosers"),
    [
        ({0: [["comic_books", "comic_books"]], 1: [["jewels", "jewels"]]}, [1]),
        ({1: [["jewels", "jewels"], ["piano", "piano"]]}, [0]),
        ({}, []),
    ],
    ids=["other_has_one_set", "drafter_has_one_set", "neither_has_two_sets"],
)
def test_a_move_target_with_fewer_than_two_sets_is_skipped(
    stacks: dict[int, list[list[str]]], choosers: list[int]
) -> None:
    """RULES #36, 2.8.5: "a target with fewer than 2 sets is skipped"."""
    s = two_player(["toy_train", "move", "scooter"], stacks)
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    asked = []
    while s.kind == MOVE_CHOICE:
        asked.append(s.to_act)
        s, more = run(s, act.choose_move(TOP_TO_BOTTOM))
        events += more
    assert asked == choosers
    assert after_draft(events)[-1] == ("reveal", 0, "toy_train")
    assert s.removed == (MOVE,)


# --- the order of flips (2.8.5) ----------------------------------------------------------


def test_used_piles_are_flipped_in_ascending_order_after_the_drafted_set_has_landed() -> None:
    """RULES 2.8.5, #34 step 6: flips come after the set has landed, pile by pile upwards,
    each pile's action card resolved before the next pile is flipped."""
    s = two_player(
        ["piano", "swap", "scooter"],
        {1: [["jewels", "jewels"]]},
        other_tops=("toy_train", "scooter"),
    )
    s, events = run(s, act.draft(SCOOTER, (2, 0)), PASS_ACTION)
    assert after_draft(events) == [
        ("draft_end", 0),
        ("pile_action", 0, "swap", "swap", (0, 1)),
        ("reveal", 0, "piano"),
        ("reveal", 2, "piano"),
    ]
    assert [st.cards for st in s.stacks[1]] == [(SCOOTER, SCOOTER, SCOOTER)]
