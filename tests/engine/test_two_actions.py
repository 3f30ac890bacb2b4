"""Two actions per turn, the re-challenge ban and hand size six (RULES #26, #33, 2.8.3, 2.8.4).

Positions are built exactly with ``tests.engine.builders``; every test plays the
engine's own ``legal_actions``/``apply`` from there.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    IllegalAction,
    RuleSet,
    State,
    apply,
    default_action,
    legal_actions,
    new_game,
)
from games.engine import actions as act
from games.engine.actions import END_TURN_ACTION
from games.engine.rules import PRESETS
from games.engine.state import SECOND_ACTION, TURN
from tests.engine.builders import ids, key, position

TWO = RuleSet.preset("2021", advanced={"two_actions": True})
TWO_2P = RuleSet.preset("2021", seats=2, advanced={"two_actions": True})
DE_TWO = RuleSet.preset("de2023", advanced={"two_actions": True})

Events = tuple[dict[str, Any], ...]


def cards(rules: RuleSet, *keys: str) -> tuple[int, ...]:
    """Card ids, ascending (the order ``Hand.cards`` uses)."""
    return tuple(sorted(ids(rules, keys)))


def types(events: Events) -> list[str]:
    return [e["type"] for e in events]


def draws(events: Events) -> list[tuple[int, int]]:
    return [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]


def play_out(state: State, *plays: int) -> tuple[State, Events]:
    """Apply several actions; return the last state and every event on the way."""
    out: list[dict[str, Any]] = []
    for a in plays:
        state, events = apply(state, a)
        out.extend(events)
    return state, tuple(out)


def challenge_targets(state: State) -> set[int]:
    """The seats the acting seat may challenge right now."""
    return {(a >> 8) & 15 for a in legal_actions(state) if a >> 20 == act.CHALLENGE}


# --- the second action (RULES #26, 2.8.4) ------------------------------------------------


def test_end_turn_is_offered_only_for_the_second_action() -> None:
    """RULES 2.8.4: "end turn" is offered only for the second action, never the first."""
    s = position(
        TWO,
        hands={0: ["piano", "piano", "jewels", "scooter", "cabin"], 1: ["comic_books"]},
        deck=["toy_train"] * 10,
    )
    assert END_TURN_ACTION not in legal_actions(s)
    with pytest.raises(IllegalAction) as refused:
        apply(s, END_TURN_ACTION)
    assert refused.value.code == "wrong_decision"

    s, _ = apply(s, act.pair(*ids(TWO, ["piano", "piano"])))
    assert (s.to_act, s.kind, s.action_no) == (0, SECOND_ACTION, 2)
    assert END_TURN_ACTION in legal_actions(s)


def test_the_second_action_is_optional_and_ending_the_turn_refills_then_passes_it() -> None:
    """RULES #26: the second action is optional ("I'm done"); the turn then ends as usual."""
    s = position(
        TWO,
        hands={0: ["piano", "piano", "jewels", "scooter", "cabin"], 1: ["comic_books"]},
        deck=["toy_train"] * 10,
    )
    s, first = apply(s, act.pair(*ids(TWO, ["piano", "piano"])))
    assert draws(first) == []  # pairing does not refill before the second action
    assert s.hands[0].size == 3

    s, events = apply(s, END_TURN_ACTION)
    assert types(events)[:2] == ["end_turn", "draw"]
    assert draws(events) == [(0, 2)]
    assert s.hands[0].size == 5
    assert (s.to_act, s.kind, s.action_no) == (1, TURN, 1)


def test_the_same_action_may_be_taken_twice() -> None:
    """RULES #26: "You may take two different actions or ... the same action twice"."""
    s = position(
        TWO,
        hands={0: ["piano", "piano", "jewels", "jewels", "cabin"], 1: ["comic_books"]},
        deck=["toy_train"] * 10,
    )
    s, _ = apply(s, act.pair(*ids(TWO, ["piano", "piano"])))
    second = act.pair(*ids(TWO, ["jewels", "jewels"]))
    assert second in legal_actions(s)
    s, events = apply(s, second)
    assert [st.kind for st in s.stacks[0]] == list(ids(TWO, ["piano", "jewels"]))
    assert draws(events) == [(0, 4)]  # the turn ended after the second action
    assert s.to_act == 1


def test_a_first_action_discard_refills_the_hand_at_once() -> None:
    """RULES #26: "If you discard as your first action, draw back ... right away"."""
    s = position(
        TWO,
        hands={0: ["piano", "jewels", "scooter", "sport_plane", "cabin"], 1: ["comic_books"]},
        deck=["toy_train", "classic_auto", "comic_books"],
    )
    s, events = apply(s, act.discard(ids(TWO, ["cabin"])[0]))
    assert types(events) == ["discard", "draw"]
    assert s.hands[0].cards == cards(TWO, "piano", "jewels", "scooter", "sport_plane", "toy_train")
    assert (s.to_act, s.kind, s.action_no) == (0, SECOND_ACTION, 2)

    # a second discard is an ordinary one: the refill waits for the end of the turn
    s, events = apply(s, act.discard(ids(TWO, ["toy_train"])[0]))
    assert draws(events) == [(0, 1)]
    assert s.to_act == 1
    assert s.deck_left == ids(TWO, ["comic_books"])


def test_only_a_discard_refills_before_the_second_action() -> None:
    """RULES #26: DE stresses that only a discard refills at once ("und nur dann!")."""
    s = position(
        TWO,
        hands={0: ["piano", "piano", "jewels", "gold", "cabin"], 1: ["comic_books"]},
        stacks={0: [["scooter", "scooter"]], 1: [["toy_train", "toy_train"], ["jewels", "silver"]]},
        deck=["toy_train"] * 10,
    )
    s, events = play_out(s, act.challenge(1, ids(TWO, ["jewels"])), act.CONCEDE_ACTION)
    assert types(events)[-1] == "challenge_end"
    assert draws(events) == []
    assert s.hands[0].size == 4
    assert s.kind == SECOND_ACTION


def test_the_turn_ends_at_once_when_the_hand_is_empty_after_the_first_action() -> None:
    """RULES 2.8.4: with an empty hand after the first action the turn ends at once."""
    s = position(TWO, hands={0: ["piano", "piano"], 1: ["comic_books"]}, deck=["cabin"] * 10)
    s, events = apply(s, act.pair(*ids(TWO, ["piano", "piano"])))
    assert "end_turn" not in types(events)  # nobody had to say "I'm done"
    assert draws(events) == [(0, 5)]
    assert (s.to_act, s.kind, s.action_no) == (1, TURN, 1)


def test_the_turn_ends_at_once_when_a_first_action_discard_finds_no_card_to_draw() -> None:
    """RULES 2.8.4: the hand is judged after the immediate refill; an empty deck leaves it empty."""
    s = position(TWO, hands={0: ["piano"], 1: ["comic_books"], 2: ["jewels"]})
    s, events = apply(s, act.discard(ids(TWO, ["piano"])[0]))
    assert types(events) == ["discard"]
    assert (s.to_act, s.kind) == (1, TURN)


# --- the re-challenge ban (RULES #26, 2.8.3) ---------------------------------------------


def lost_challenge(rules: RuleSet) -> State:
    """Seat 0 challenges seat 1's Piano set, seat 1 defends, seat 0 gives up.

    Card ids stand for the same role in every edition (``games.engine.cards``), so the
    position is written once in ids and named in the rules' own keys (2021 or German).
    """
    piano, scooter, cabin, jewels, silver, comic = ids(
        TWO, ["piano", "scooter", "cabin", "jewels", "silver", "comic_books"]
    )

    def names(*card_ids: int) -> list[str]:
        return [key(rules, c) for c in card_ids]

    s = position(
        rules,
        hands={
            0: names(piano, silver, scooter, jewels, jewels),
            1: names(piano, comic),
            2: names(jewels),
            3: names(jewels),
        },
        stacks={
            0: [names(cabin, cabin)],
            1: [names(cabin, cabin), names(piano, piano)],
            2: [names(cabin, cabin), names(scooter, scooter)],
        },
        deck=names(comic) * 30,
    )
    s, _ = play_out(
        s,
        act.challenge(1, (piano,)),
        act.play((piano,)),  # seat 1 defends
        act.CONCEDE_ACTION,  # seat 0 gives up: seat 1 keeps its set
    )
    return s


def test_a_challenger_who_lost_may_not_challenge_that_seat_again_this_turn() -> None:
    """RULES #26: "If you challenge and lose, you can't challenge the same player until your
    next turn"; other seats stay open to a second challenge."""
    s = lost_challenge(TWO)
    assert s.bans == ((0, 1),)
    assert (s.to_act, s.kind) == (0, SECOND_ACTION)
    assert challenge_targets(s) == {2}
    with pytest.raises(IllegalAction) as refused:
        apply(s, act.challenge(1, ids(TWO, ["silver"])))
    assert refused.value.code == "rechallenge_banned"


def test_the_german_rules_have_no_rechallenge_ban() -> None:
    """RULES #26: DE has two actions without the ban (no_rechallenge_after_loss=False)."""
    assert PRESETS["de2023"].advanced.no_rechallenge_after_loss is False
    s = lost_challenge(DE_TWO)
    assert s.bans == ()
    assert challenge_targets(s) == {1, 2}
    same = act.challenge(1, ids(DE_TWO, ["silber"]))
    assert same in legal_actions(s)
    assert apply(s, same)[0].challenge is not None


def test_switching_the_ban_off_lets_the_loser_challenge_the_same_seat_again() -> None:
    """RULES #26: ``no_rechallenge_after_loss=False`` is the DE reading on any preset."""
    rules = RuleSet.preset(
        "2021", advanced={"two_actions": True, "no_rechallenge_after_loss": False}
    )
    s = lost_challenge(rules)
    assert s.bans == ()
    assert challenge_targets(s) == {1, 2}


def test_there_is_no_ban_without_two_actions() -> None:
    """RULES 2.8.3: the ban applies only when ``two_actions`` is on."""
    s = lost_challenge(RuleSet.preset("2021"))
    assert s.bans == ()
    assert s.to_act == 1  # one action: the turn is over


def test_the_ban_lasts_until_the_banned_seats_own_next_turn_starts() -> None:
    """RULES 2.8.3: the ban ends when the banned player's own next turn starts."""
    s, _ = apply(lost_challenge(TWO), END_TURN_ACTION)
    for seat in (1, 2, 3):
        assert (s.turn, s.bans) == (seat, ((0, 1),))
        s, _ = play_out(s, default_action(s))  # a discard, refilled at once
        s, _ = play_out(s, default_action(s))  # "I'm done"
    assert (s.turn, s.bans) == (0, ())
    assert challenge_targets(s) == {1, 2}


def test_a_draft_challenger_who_lost_is_banned_from_challenging_the_drafter() -> None:
    """RULES 2.8.3, 2.8.2: a losing draft challenger is banned too, so it is not asked about
    the drafter's second draft; the ban ends when its own turn starts."""
    s = position(
        TWO_2P,
        hands={
            0: ["scooter", "scooter", "scooter", "piano", "jewels", "jewels"],
            1: ["silver", "piano"],
        },
        piles=[
            ["comic_books", "scooter"],
            ["comic_books", "scooter"],
            ["comic_books", "toy_train"],
        ],
        deck=["toy_train"] * 20,
    )
    scooter, silver = ids(TWO_2P, ["scooter", "silver"])
    s, events = play_out(
        s,
        act.draft(scooter, (0,)),
        act.play((silver,)),  # seat 1 challenges the drafted set
        act.play((scooter,)),  # seat 0 defends
        act.CONCEDE_ACTION,  # seat 1 holds only a Piano
    )
    end = next(e for e in events if e["type"] == "draft_end")
    assert (end["winner"], end["challenged"]) == (0, True)
    assert s.bans == ((1, 0),)
    assert (s.to_act, s.kind) == (0, SECOND_ACTION)

    s, events = apply(s, act.draft(scooter, (1,)))  # the second action: another draft
    assert types(events)[:2] == ["draft", "draft_end"]  # seat 1 is not asked
    assert events[1]["challenged"] is False
    assert s.hands[1].size > 0
    assert (s.turn, s.bans) == (1, ())  # seat 1's turn has started: the ban is over


def test_defenders_refill_at_the_end_of_the_turn_in_the_order_of_the_challenges() -> None:
    """RULES #26, #18: the active seat draws first, then each defender in the order it was
    challenged (not seat order), all at the end of the turn; the deck runs out in that order."""
    s = position(
        TWO,
        hands={
            0: ["piano", "scooter", "jewels", "jewels", "comic_books"],
            1: ["piano", "comic_books", "comic_books", "comic_books", "comic_books"],
            2: ["scooter", "comic_books", "comic_books", "comic_books", "comic_books"],
            3: ["jewels"] * 5,
        },
        stacks={
            0: [["cabin", "cabin"]],
            1: [["cabin", "cabin"], ["piano", "piano"]],
            2: [["cabin", "cabin"], ["scooter", "scooter"]],
        },
        deck=["toy_train"] * 3,
    )
    piano, scooter = ids(TWO, ["piano", "scooter"])
    s, _ = play_out(s, act.challenge(2, (scooter,)), act.play((scooter,)), act.CONCEDE_ACTION)
    assert s.kind == SECOND_ACTION
    assert s.hands[2].size == 4
    s, events = play_out(s, act.challenge(1, (piano,)), act.play((piano,)), act.CONCEDE_ACTION)
    assert draws(events) == [(0, 2), (2, 1)]  # the deck ran out before seat 1
    assert [h.size for h in s.hands] == [5, 4, 5, 5]
    assert s.refill == ()


# --- hand size six (RULES #33) -----------------------------------------------------------


def test_hand_six_deals_and_refills_six_cards() -> None:
    """RULES #33, #1: the advanced hand size is six, dealt and refilled."""
    rules = RuleSet.preset("2021", advanced={"hand_six": True})
    s = new_hands(rules)
    assert [h.size for h in s.hands] == [6, 6, 6, 6]
    s, events = apply(s, act.discard(s.hands[s.to_act].cards[0]))
    assert draws(events) == [(events[0]["seat"], 1)]
    assert all(h.size == 6 for h in s.hands)


def test_without_hand_six_a_four_seat_hand_is_five_and_two_seats_already_play_six() -> None:
    """RULES #33: the switch changes 5 to 6; the two-player game deals 6 anyway (RULES #1)."""
    assert [h.size for h in new_hands(RuleSet.preset("2021")).hands] == [5] * 4
    assert [h.size for h in new_hands(RuleSet.preset("2021", seats=2)).hands] == [6, 6]
    six_2p = RuleSet.preset("2021", seats=2, advanced={"hand_six": True})
    assert [h.size for h in new_hands(six_2p).hands] == [6, 6]


def new_hands(rules: RuleSet) -> State:
    """A freshly dealt game under these rules."""
    return new_game(rules, seed=3)
