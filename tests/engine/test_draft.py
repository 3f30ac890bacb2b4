"""Two- and three-player draft piles: drafting, draft challenges, exhausted piles
(RULES #34, #35, #37, 2.8.2), and the rulebook's Phil/Carla and David/Apryl examples.

Piles are written bottom first, so the last card of each is its face-up top. With three
seats, pile ``p`` lies between seat ``p`` and seat ``p + 1``: seat 0 drafts from piles 0
and 2 only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions
from games.engine import actions as act
from games.engine.actions import CONCEDE_ACTION, PASS_ACTION
from games.engine.state import DEFEND, DRAFT_CHALLENGE, TURN
from tests.engine.builders import ids, position

TWO = RuleSet.preset("2021", seats=2)
THREE = RuleSet.preset("2021", seats=3)
SCOOTER, TRAIN, JEWELS, PIANO, SILVER, GOLD = ids(
    TWO, ["scooter", "toy_train", "jewels", "piano", "silver", "gold"]
)
Events = tuple[dict[str, Any], ...]


def table(
    rules: RuleSet,
    hands: dict[int, list[str]],
    tops: Sequence[str | None],
    *,
    stacks: dict[int, list[list[str]]] | None = None,
    deck: Sequence[str] = ("comic_books",) * 30,
    to_act: int = 0,
) -> State:
    """Seat ``to_act`` on turn; each pile is two Pianos under the given top (None: empty)."""
    piles = [[] if top is None else ["piano", "piano", top] for top in tops]
    return position(rules, hands=hands, stacks=stacks, piles=piles, deck=deck, to_act=to_act)


def drafts(state: State) -> set[tuple[int, tuple[int, ...]]]:
    """The legal drafts as (hand card, piles)."""
    out = set()
    for a in legal_actions(state):
        if a >> 20 == act.DRAFT:
            out.add(((a >> 16) & 15, tuple(p for p in range(3) if a >> p & 1)))
    return out


def run(state: State, *actions: int) -> tuple[State, Events]:
    out: list[dict[str, Any]] = []
    for a in actions:
        state, events = apply(state, a)
        out.extend(events)
    return state, tuple(out)


def of_type(events: Events, kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# --- drafting a set (RULES #34) ----------------------------------------------------------


def test_two_players_draft_one_hand_card_with_any_matching_subset_of_the_three_tops() -> None:
    """RULES #34: in 2p, "as many [tops] as can be combined into one set that matches"."""
    s = table(TWO, {0: ["scooter"], 1: ["piano"]}, ["scooter", "silver", "toy_train"])
    assert drafts(s) == {(SCOOTER, (0,)), (SCOOTER, (1,)), (SCOOTER, (0, 1))}


def test_three_players_draft_exactly_one_top_from_a_pile_beside_them() -> None:
    """RULES #34: in 3p, one pile only, the one to the left or right; never the pile
    between the other two players."""
    s = table(THREE, {0: ["scooter"], 1: ["piano"], 2: ["piano"]}, ["scooter"] * 3)
    assert drafts(s) == {(SCOOTER, (0,)), (SCOOTER, (2,))}
    with pytest.raises(IllegalAction) as far:
        apply(s, act.draft(SCOOTER, (1,)))
    assert far.value.code == "pile_unavailable"
    with pytest.raises(IllegalAction) as two_piles:
        apply(s, act.draft(SCOOTER, (0, 2)))
    assert two_piles.value.code == "pile_unavailable"
    seat_1 = table(THREE, {0: ["piano"], 1: ["scooter"], 2: ["piano"]}, ["scooter"] * 3, to_act=1)
    assert drafts(seat_1) == {(SCOOTER, (0,)), (SCOOTER, (1,))}


def test_a_draft_takes_exactly_one_card_from_the_hand() -> None:
    """RULES #34: "Play one asset (or Wild) from your hand"; a second matching hand card stays."""
    s = table(TWO, {0: ["scooter", "scooter", "silver"], 1: ["piano"]}, ["scooter"] * 3)
    assert all(len(act.cards_of(a)) == 1 for a in legal_actions(s) if a >> 20 == act.DRAFT)
    s, events = run(s, act.draft(SCOOTER, (0, 1, 2)), PASS_ACTION)
    assert of_type(events, "draft")[0]["cards"] == ["scooter"] * 4
    assert s.stacks[0][0].cards == (SCOOTER,) * 4
    assert s.hands[0].counts[SCOOTER] == 1
    assert s.hands[0].counts[SILVER] == 1


def test_a_drafted_set_must_hold_an_asset() -> None:
    """RULES #34: a wild from hand with only wilds from the piles is no set."""
    s = table(TWO, {0: ["silver"], 1: ["piano"]}, ["gold", "silver", None])
    assert drafts(s) == set()
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.draft(SILVER, (0, 1)))
    assert refused.value.code == "invalid_set"


def test_a_wild_from_hand_takes_two_wilds_from_the_piles_only_beside_an_asset() -> None:
    """RULES #34: two or more wilds are allowed only beside an asset."""
    s = table(TWO, {0: ["gold"], 1: ["piano"]}, ["silver", "gold", "jewels"])
    assert drafts(s) == {(GOLD, (2,)), (GOLD, (0, 2)), (GOLD, (1, 2)), (GOLD, (0, 1, 2))}
    s, events = run(s, act.draft(GOLD, (0, 1, 2)), PASS_ACTION)
    assert of_type(events, "draft")[0]["kind"] == "jewels"
    assert s.stacks[0][0].kind == JEWELS


def test_a_drafted_set_never_mixes_two_assets() -> None:
    """RULES #34, #7: one set, one asset kind."""
    s = table(TWO, {0: ["silver"], 1: ["piano"]}, ["scooter", "toy_train", None])
    assert drafts(s) == {(SILVER, (0,)), (SILVER, (1,))}


def test_an_action_card_is_never_drafted() -> None:
    """RULES #34, #32: only an asset or a wild is played from hand to draft."""
    rules = RuleSet.preset("2021", seats=2, advanced={"action_cards": True})
    s = table(rules, {0: ["swap", "move"], 1: ["piano"]}, ["scooter"] * 3)
    assert drafts(s) == set()


# --- challenging a drafted set (RULES #35, 2.8.2) ----------------------------------------


def test_the_opponent_may_challenge_a_drafted_set_in_a_two_player_game() -> None:
    """RULES #35: the opponent may challenge "außer der Reihe" with a matching asset or a
    wild; the drafter's first set is exposed too, as it is not yet in a stack."""
    s = table(TWO, {0: ["scooter"], 1: ["scooter", "gold", "piano"]}, ["scooter"] * 3)
    s, _ = run(s, act.draft(SCOOTER, (0,)))
    assert s.stacks[0] == ()
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)
    assert set(legal_actions(s)) == {act.play((SCOOTER,)), act.play((GOLD,)), PASS_ACTION}


def test_a_draft_challenger_who_wins_takes_the_drafted_set() -> None:
    """RULES #35: "If you lose, your opponent takes it", with every challenge card."""
    s = table(TWO, {0: ["scooter", "piano"], 1: ["gold"]}, ["scooter"] * 3)
    s, _ = run(s, act.draft(SCOOTER, (0,)), act.play((GOLD,)))
    assert (s.to_act, s.kind) == (0, DEFEND)
    s, more = run(s, CONCEDE_ACTION)
    end = of_type(more, "draft_end")[0]
    assert (end["winner"], end["challenged"], end["set_count"]) == (1, True, 3)
    assert s.stacks[0] == ()
    assert s.stacks[1][0].cards == (SCOOTER, SCOOTER, GOLD)


def test_only_the_neighbour_beside_the_pile_may_challenge_in_a_three_player_game() -> None:
    """RULES #35: "the opponent who sits next to it can choose to challenge it. The other
    opponent may not"."""
    hands = {0: ["scooter", "scooter"], 1: ["silver"], 2: ["gold"]}
    s, _ = run(table(THREE, hands, ["scooter"] * 3), act.draft(SCOOTER, (0,)))
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)
    s, events = run(s, PASS_ACTION)
    assert [e["type"] for e in events][:2] == ["pass", "draft_end"]  # seat 2 is never asked

    s, _ = run(table(THREE, hands, ["scooter"] * 3), act.draft(SCOOTER, (2,)))
    assert (s.to_act, s.kind) == (2, DRAFT_CHALLENGE)


def test_a_draft_challenger_needs_no_set_of_its_own_by_default() -> None:
    """RULES #35: no own-set prerequisite for draft challenges (default)."""
    s = table(TWO, {0: ["scooter"], 1: ["gold"]}, ["scooter"] * 3)
    assert s.stacks[1] == ()
    s, _ = run(s, act.draft(SCOOTER, (0,)))
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)


def test_draft_challenge_requires_own_set_skips_an_opponent_without_a_set() -> None:
    """RULES #35, 2.8.2: under ``draft_challenge_requires_own_set`` a seat without a set
    is not asked; one with a set is."""
    rules = TWO.with_options(draft_challenge_requires_own_set=True)
    s, events = run(
        table(rules, {0: ["scooter"], 1: ["gold"]}, ["scooter"] * 3), act.draft(SCOOTER, (0,))
    )
    assert of_type(events, "draft_end")[0]["challenged"] is False
    assert s.stacks[0][0].cards == (SCOOTER, SCOOTER)

    owner = table(
        rules, {0: ["scooter"], 1: ["gold"]}, ["scooter"] * 3, stacks={1: [["piano", "piano"]]}
    )
    s, _ = run(owner, act.draft(SCOOTER, (0,)))
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)


def test_an_opponent_holding_no_matching_card_is_still_asked() -> None:
    """RULES 2.8.2, #17: asked whenever they hold a card, so the prompt leaks nothing."""
    s, _ = run(
        table(TWO, {0: ["scooter"], 1: ["piano"]}, ["scooter"] * 3), act.draft(SCOOTER, (0,))
    )
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)
    assert legal_actions(s) == (PASS_ACTION,)


def test_an_opponent_with_an_empty_hand_is_not_asked() -> None:
    """RULES 2.8.2: not asked with an empty hand."""
    s, events = run(table(TWO, {0: ["scooter"], 1: []}, ["scooter"] * 3), act.draft(SCOOTER, (0,)))
    assert [e["type"] for e in events][:2] == ["draft", "draft_end"]
    assert s.stacks[0][0].cards == (SCOOTER, SCOOTER)


def test_under_auto_yield_no_legal_card_an_opponent_without_a_match_is_not_asked() -> None:
    """RULES 2.8.2, #17: with ``auto_yield=no_legal_card`` only a seat that could answer is
    asked."""
    rules = TWO.with_options(auto_yield="no_legal_card")
    s, events = run(
        table(rules, {0: ["scooter"], 1: ["piano"]}, ["scooter"] * 3), act.draft(SCOOTER, (0,))
    )
    assert of_type(events, "draft_end")[0]["challenged"] is False
    s, _ = run(
        table(rules, {0: ["scooter"], 1: ["silver"]}, ["scooter"] * 3), act.draft(SCOOTER, (0,))
    )
    assert (s.to_act, s.kind) == (1, DRAFT_CHALLENGE)


def test_a_seat_banned_from_challenging_the_drafter_is_not_asked() -> None:
    """RULES 2.8.2, 2.8.3: a seat that lost a challenge against the drafter is not asked
    about the drafter's draft, even holding a wild, until its own next turn starts."""
    rules = TWO.with_options(advanced={"two_actions": True})
    s = position(
        rules,
        hands={0: ["jewels", "scooter", "piano"], 1: ["jewels", "gold", "piano"]},
        stacks={0: [["comic_books", "comic_books"], ["jewels", "jewels"]], 1: [["piano", "piano"]]},
        piles=[["piano", "scooter"], ["piano", "scooter"], ["piano", "scooter"]],
        deck=["comic_books"] * 30,
        to_act=1,
    )
    s, _ = run(s, act.challenge(0, (JEWELS,)), act.play((JEWELS,)), CONCEDE_ACTION)
    assert s.bans == ((1, 0),)
    s, _ = run(s, act.END_TURN_ACTION)
    assert (s.turn, s.bans) == (0, ((1, 0),))

    s, events = run(s, act.draft(SCOOTER, (0,)))
    assert [e["type"] for e in events][:2] == ["draft", "draft_end"]
    assert events[1]["challenged"] is False
    assert s.hands[1].counts[GOLD] == 1  # seat 1 could have answered, but is banned
    s, _ = run(s, act.END_TURN_ACTION)
    assert (s.turn, s.bans) == (1, ())


# --- exhausted draft piles and the end of the round (RULES #37) --------------------------


def test_an_exhausted_draft_pile_stays_empty() -> None:
    """RULES #37: an empty pile stays empty: nothing refills it and nothing is drafted from it."""
    s = position(
        TWO,
        hands={0: ["scooter", "scooter"], 1: ["piano"]},
        piles=[["scooter"], ["piano", "scooter"], ["piano", "toy_train"]],
        deck=["scooter"] * 30,
    )
    s, events = run(s, act.draft(SCOOTER, (0,)), PASS_ACTION)
    assert s.piles[0] == ()
    assert [e["pile"] for e in of_type(events, "reveal")] == []
    s, _ = run(s, act.discard(PIANO))  # seat 1's turn
    assert s.piles[0] == ()
    assert drafts(s) == {(SCOOTER, (1,))}


def test_remaining_draft_cards_do_not_extend_the_round() -> None:
    """RULES #37, #20: the round ends when the deck and every hand are empty, whatever is
    left in the draft piles; those cards score nothing."""
    rules = TWO.with_options(ending="quick")
    s = position(
        rules,
        hands={0: ["piano"]},
        stacks={1: [["jewels", "jewels"]]},
        piles=[["scooter", "scooter"], ["scooter"], ["toy_train"]],
    )
    assert legal_actions(s) == (act.discard(PIANO),)
    s, events = apply(s, act.discard(PIANO))
    assert of_type(events, "round_end")[0]["scores"] == [0, 20_000]
    assert s.over


def test_exhausted_draft_piles_do_not_end_the_round() -> None:
    """RULES #37: play goes on while cards remain in the deck or in hands."""
    s = position(
        TWO,
        hands={0: ["piano", "jewels"], 1: ["piano"]},
        piles=[[], [], []],
    )
    s, events = apply(s, act.discard(PIANO))
    assert of_type(events, "round_end") == []
    assert (s.to_act, s.kind) == (1, TURN)


# --- the rulebook's examples (EN21 "Draft a Set") ----------------------------------------


def test_phil_drafts_two_scooters_with_their_scooter_and_carla_lets_it_pass() -> None:
    """EN21 example 1 (RULES #34, #35): "Two Scooters and a Train are on top of the draft
    piles. Phil plays a Scooter from their hand and combines it with the two visible
    Scooters. Carla does not challenge, so Phil adds the set to their stack"."""
    phil, carla = 0, 1
    s = position(
        TWO,
        hands={
            phil: ["scooter", "piano", "jewels", "comic_books", "piggy_bank", "classic_auto"],
            carla: ["silver", "piano", "toy_train", "comic_books", "jewels", "piggy_bank"],
        },
        piles=[["jewels", "scooter"], ["comic_books", "scooter"], ["piano", "toy_train"]],
        deck=["comic_books"] * 30,
    )
    assert (SCOOTER, (0, 1)) in drafts(s)
    assert act.draft(SCOOTER, (0, 1, 2)) not in legal_actions(s)  # the Train does not fit
    s, events = run(s, act.draft(SCOOTER, (0, 1)))
    assert events[0]["cards"] == ["scooter"] * 3
    assert (s.to_act, s.kind) == (carla, DRAFT_CHALLENGE)  # Carla could challenge with Silver

    s, events = run(s, PASS_ACTION)
    end = of_type(events, "draft_end")[0]
    assert (end["winner"], end["challenged"]) == (phil, False)
    assert [st.cards for st in s.stacks[phil]] == [(SCOOTER,) * 3]
    assert [(e["pile"], e["card"]) for e in of_type(events, "reveal")] == [
        (0, "jewels"),
        (1, "comic_books"),
    ]
    assert s.piles[2][-1] == TRAIN
    assert (s.to_act, s.kind) == (carla, TURN)


def test_david_drafts_jewels_with_two_wilds_and_apryl_wins_the_set_with_jewels() -> None:
    """EN21 example 2 (RULES #34, #35): "A Sport Plane, Gold, and Silver are on top of the
    draft piles. David plays a Jewels card from his hand, forming a set with the 2 Wilds.
    Apryl challenges with a Jewels card. He can't defend, so Apryl wins the set"."""
    david, apryl = 0, 1
    s = position(
        TWO,
        hands={
            david: ["jewels", "piano", "comic_books", "toy_train", "piggy_bank", "scooter"],
            apryl: ["jewels", "piano", "comic_books", "toy_train", "piggy_bank", "scooter"],
        },
        piles=[["piano", "sport_plane"], ["piano", "gold"], ["piano", "silver"]],
        deck=["classic_auto"] * 30,
    )
    s, events = run(s, act.draft(JEWELS, (1, 2)))
    assert events[0]["cards"] == ["jewels", "gold", "silver"]
    assert events[0]["kind"] == "jewels"

    s, events = run(s, act.play((JEWELS,)))
    assert events[0] == {"type": "draft_challenge", "seat": apryl, "cards": ["jewels"]}
    assert (s.to_act, s.kind) == (david, DEFEND)
    assert legal_actions(s) == (CONCEDE_ACTION,)  # he can't defend

    s, events = run(s, CONCEDE_ACTION)
    end = of_type(events, "draft_end")[0]
    assert (end["winner"], end["challenger"], end["challenged"]) == (apryl, apryl, True)
    assert [st.cards for st in s.stacks[apryl]] == [(JEWELS, GOLD, SILVER, JEWELS)]
    assert s.stacks[david] == ()
    assert [(e["seat"], e["count"]) for e in of_type(events, "draw")] == [(david, 1), (apryl, 1)]
