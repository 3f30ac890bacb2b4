"""``bottom_protection="first_formed"``: the protection travels with the set (RULES #12,
2.8.10).

Without Swap and Move the first formed set is always the bottom set; these tests move
sets around and compare with the default positional protection.
"""

from __future__ import annotations

from typing import Any

from games.engine import RuleSet, State, apply, legal_actions, observe
from games.engine import actions as act
from games.engine.actions import BOTTOM_TO_TOP, CONCEDE_ACTION, PASS_ACTION
from tests.engine.builders import ids, position

FIRST = RuleSet.preset("2021", bottom_protection="first_formed", advanced={"action_cards": True})
POSITION = RuleSet.preset("2021", advanced={"action_cards": True})
COMIC, PIANO, JEWELS, CABIN, SCOOTER, SILVER, TRAIN = ids(
    FIRST, ["comic_books", "piano", "jewels", "cabin", "scooter", "silver", "toy_train"]
)


def run(state: State, *actions: int) -> tuple[State, tuple[dict[str, Any], ...]]:
    out: list[dict[str, Any]] = []
    for a in actions:
        state, events = apply(state, a)
        out.extend(events)
    return state, tuple(out)


def after_swap(rules: RuleSet) -> State:
    """Seat 3 swaps its lone first set (Piano) for seat 1's top (Jewels); seat 0 is next."""
    s = position(
        rules,
        hands={
            0: ["jewels", "piano", "silver"],
            1: ["comic_books"],
            2: ["comic_books"],
            3: ["swap", "piano"],
        },
        stacks={
            0: [["comic_books", "comic_books"]],
            1: [["cabin", "cabin"], ["jewels", "jewels"]],
            3: [["piano", "piano"]],
        },
        deck=["toy_train"] * 20,
        to_act=3,
    )
    s, _ = run(s, act.swap(1))
    assert s.to_act == 0
    return s


def challenges(state: State) -> set[int]:
    return {a for a in legal_actions(state) if a >> 20 == act.CHALLENGE}


def protected(state: State, seat: int) -> list[bool]:
    return [st["protected"] for st in observe(state, 0)["stacks"][seat]]


def test_a_swapped_first_set_stays_protected_on_top_of_its_new_stack() -> None:
    """RULES 2.8.10: the first formed set keeps its protection wherever Swap takes it, and the
    set given in exchange arrives unprotected, even alone in a stack."""
    s = after_swap(FIRST)
    assert [(st.kind, st.first) for st in s.stacks[1]] == [(CABIN, True), (PIANO, True)]
    assert [(st.kind, st.first) for st in s.stacks[3]] == [(JEWELS, False)]
    assert protected(s, 1) == [True, True]
    assert protected(s, 3) == [False]
    assert challenges(s) == {act.challenge(3, (JEWELS,)), act.challenge(3, (SILVER,))}


def test_under_positional_protection_the_bottom_set_is_safe_wherever_it_came_from() -> None:
    """RULES #12: the default protects whatever set is at the bottom: the contrast case."""
    s = after_swap(POSITION)
    assert protected(s, 1) == [True, False]
    assert protected(s, 3) == [True]
    assert challenges(s) == {act.challenge(1, (PIANO,)), act.challenge(1, (SILVER,))}


def test_a_stolen_set_carries_its_mark_to_the_winners_stack() -> None:
    """RULES 2.8.10: a set taken in a challenge keeps its (un)protected mark in its new stack."""
    s, events = run(after_swap(FIRST), act.challenge(3, (JEWELS,)), CONCEDE_ACTION)
    assert next(e for e in events if e["type"] == "challenge_end")["winner"] == 0
    assert [(st.kind, st.first) for st in s.stacks[0]] == [(COMIC, True), (JEWELS, False)]
    assert s.stacks[3] == ()
    assert protected(s, 0) == [True, False]


def test_a_first_set_moved_to_the_top_stays_protected() -> None:
    """RULES 2.8.10, #31: Move carries the mark too: a first set brought to the top is still
    safe, and the set moved under it is not (positional protection swaps them)."""
    hands = {0: ["move", "jewels", "silver"], 1: ["comic_books"], 2: ["comic_books"]}
    stacks = {
        0: [["comic_books", "comic_books"]],
        1: [["cabin", "cabin"], ["jewels", "jewels"]],
        2: [["comic_books", "comic_books"]],
    }
    for rules, safe in ((FIRST, [False, True]), (POSITION, [True, False])):
        s = position(rules, hands=hands, stacks=stacks, deck=["toy_train"] * 20)
        s, _ = run(s, act.move(1, BOTTOM_TO_TOP))
        assert [st.kind for st in s.stacks[1]] == [JEWELS, CABIN]
        assert protected(s, 1) == safe, rules.bottom_protection


def test_a_drafted_set_landing_in_an_empty_stack_is_the_first_formed() -> None:
    """RULES 2.8.10, #35: the first set to land in a stack is marked, whether its owner
    drafted it or won it in a draft challenge; later sets are not."""
    rules = RuleSet.preset("2021", seats=2, bottom_protection="first_formed")
    s = position(
        rules,
        hands={0: ["scooter", "scooter"], 1: ["silver"]},
        piles=[["piano", "scooter"], ["piano", "scooter"], ["piano", "piano"]],
        deck=["toy_train"] * 20,
    )
    s, _ = run(s, act.draft(SCOOTER, (0,)), act.play((SILVER,)), CONCEDE_ACTION)
    assert [(st.kind, st.first) for st in s.stacks[1]] == [(SCOOTER, True)]
    assert s.to_act == 1
    s, _ = run(s, act.discard(ids(rules, ["toy_train"])[0]))
    s, _ = run(s, act.draft(SCOOTER, (1,)), PASS_ACTION)  # seat 0's own first set
    assert [(st.kind, st.first) for st in s.stacks[0]] == [(SCOOTER, True)]
    s, _ = run(s, act.discard(ids(rules, ["toy_train"])[0]))
    s, _ = run(s, act.pair(*ids(rules, ["toy_train", "toy_train"])))  # a later set is not
    assert [(st.kind, st.first) for st in s.stacks[0]] == [(SCOOTER, True), (TRAIN, False)]
