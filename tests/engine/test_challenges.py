"""Challenges: who may challenge whom, what each response may be, who wins, refills.

RULES #10-19, and the EN21 worked example (Ezra takes Cathy's Auto set). Seat 0 is
the challenger on turn and seat 1 the defender unless a test says otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from games.engine import IllegalAction, RuleSet, State, apply, legal_actions, observe
from games.engine import actions as act
from games.engine.cards import GOLD, SILVER
from games.engine.state import DECISION_NAMES, AssetSet
from tests.engine.builders import Cards, ids, make_set, position

R = RuleSet()
PIANO, TOY_TRAIN, JEWELS, AUTO, CABIN, SCOOTER = ids(
    R, ["piano", "toy_train", "jewels", "classic_auto", "cabin", "scooter"]
)
DECK = ["scooter"] * 20
OWN_SET = [["jewels", "jewels"]]
AUTO_ON_TOP = [["toy_train", "toy_train"], ["classic_auto", "classic_auto"]]


def duel(
    challenger: Cards,
    defender: Cards,
    *,
    rules: RuleSet = R,
    deck: Cards = DECK,
    challenger_stack: Sequence[Cards | AssetSet] | None = None,
    defender_stack: Sequence[Cards | AssetSet] | None = None,
) -> State:
    """Seat 0 on turn with a Jewels set; seat 1 with Toy Train at the bottom and Classic
    Auto on top; seats 2 and 3 hold five pianos each and own nothing."""
    return position(
        rules,
        hands={0: challenger, 1: defender, 2: ["piano"] * 5, 3: ["piano"] * 5},
        stacks={
            0: OWN_SET if challenger_stack is None else challenger_stack,
            1: AUTO_ON_TOP if defender_stack is None else defender_stack,
        },
        deck=deck,
    )


def labels(s: State) -> set[str]:
    """The legal actions, readable."""
    return {act.describe(a, s.rules.edition) for a in legal_actions(s)}


def challenges(s: State) -> set[str]:
    """The legal challenges, readable."""
    return {
        act.describe(a, s.rules.edition)
        for a in legal_actions(s)
        if act.action_type(a) == act.CHALLENGE
    }


def refused(s: State, action: int) -> str:
    """The error code apply gives for an action that is not legal here."""
    assert action not in legal_actions(s), act.describe(action, s.rules.edition)
    with pytest.raises(IllegalAction) as err:
        apply(s, action)
    return err.value.code


def run(s: State, *actions: int) -> tuple[State, list[dict[str, Any]]]:
    """Apply actions in turn; return the last state and every event."""
    events: list[dict[str, Any]] = []
    for a in actions:
        s, ev = apply(s, a)
        events.extend(ev)
    return s, events


def types(events: Sequence[dict[str, Any]]) -> list[str]:
    """The event types, in order."""
    return [e["type"] for e in events]


def decision_kind(s: State) -> str:
    """The name of the pending decision."""
    return DECISION_NAMES[s.kind]


# --- RULES #10, #11: who may challenge, and which set --------------------------------


def test_a_player_without_a_set_may_not_challenge() -> None:
    """RULES #10: the challenger must have at least one set in its stack."""
    s = duel(
        ["classic_auto", "gold", "piano", "cabin", "scooter"], ["piano"] * 5, challenger_stack=[]
    )
    assert challenges(s) == set()
    assert refused(s, act.challenge(1, (AUTO,))) == "no_own_set"


def test_a_player_with_one_set_may_challenge() -> None:
    """RULES #10: one set is enough."""
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], ["piano"] * 5)
    assert challenges(s) == {"challenge target=1 depth=top cards=classic_auto"}


def test_a_lone_bottom_set_cannot_be_challenged() -> None:
    """RULES #11: the bottom set is safe, so the target needs two or more sets."""
    s = duel(
        ["toy_train", "gold", "piano", "cabin", "scooter"],
        ["piano"] * 5,
        defender_stack=[["toy_train", "toy_train"]],
    )
    assert challenges(s) == set()
    assert refused(s, act.challenge(1, (TOY_TRAIN,))) == "set_protected"
    assert refused(s, act.challenge(1, (GOLD,))) == "set_protected"


def test_only_the_top_set_can_be_challenged_in_the_classic_game() -> None:
    """RULES #11: a middle set is out of reach (second-from-top is an advanced rule)."""
    s = duel(
        ["piano", "piano", "classic_auto", "cabin", "scooter"],
        ["jewels"] * 5,
        defender_stack=[["toy_train", "toy_train"], ["piano", "piano"], ["classic_auto", "gold"]],
    )
    assert challenges(s) == {"challenge target=1 depth=top cards=classic_auto"}
    assert refused(s, act.challenge(1, (PIANO,))) == "card_does_not_match"
    assert refused(s, act.challenge(1, (PIANO, PIANO), depth=1)) == "rule_disabled"


def test_every_seat_with_two_sets_is_a_target() -> None:
    """RULES #10, #11: any other seat whose top set sits above a bottom set."""
    s = position(
        R,
        hands={0: ["gold", "piano", "piano", "cabin", "scooter"]},
        stacks={
            0: OWN_SET,
            1: AUTO_ON_TOP,
            2: [["cabin", "cabin"]],
            3: [["jewels", "jewels"], ["piano", "silver"]],
        },
    )
    assert challenges(s) == {
        "challenge target=1 depth=top cards=gold",
        "challenge target=3 depth=top cards=piano",
        "challenge target=3 depth=top cards=gold",
    }


# --- RULES #12: what the bottom protection attaches to --------------------------------


def moved_stack() -> list[Cards | AssetSet]:
    """A stack whose first-formed set was moved to the top (as a Move card does)."""
    return [
        make_set(R, ["toy_train", "toy_train"], first=False),
        make_set(R, ["classic_auto", "classic_auto"], first=True),
    ]


def test_position_protection_guards_whatever_set_is_at_the_bottom() -> None:
    """RULES #12 ``position`` (default): the first-formed set, now on top, can be taken;
    the set now at the bottom is safe."""
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["piano"] * 5,
        defender_stack=moved_stack(),
    )
    assert challenges(s) == {"challenge target=1 depth=top cards=classic_auto"}
    assert [st["protected"] for st in observe(s, 0)["stacks"][1]] == [True, False]


def test_first_formed_protection_travels_with_the_first_set() -> None:
    """RULES #12 ``first_formed``, 2.8.10: the first-formed set stays safe on top."""
    rules = R.with_options(bottom_protection="first_formed")
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["piano"] * 5,
        rules=rules,
        defender_stack=moved_stack(),
    )
    assert challenges(s) == set()
    assert refused(s, act.challenge(1, (AUTO,))) == "set_protected"
    assert [st["protected"] for st in observe(s, 0)["stacks"][1]] == [False, True]


@pytest.mark.parametrize(
    ("protection", "open_to_challenge"), [("position", False), ("first_formed", True)]
)
def test_a_lone_set_that_was_not_formed_first_is_safe_only_by_position(
    protection: str, open_to_challenge: bool
) -> None:
    """RULES #12: a stack holding one set that was not its first (after a Swap) is safe
    under ``position`` and exposed under ``first_formed``."""
    rules = R.with_options(bottom_protection=protection)
    lone = [make_set(R, ["classic_auto", "classic_auto"], first=False)]
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["piano"] * 5,
        rules=rules,
        defender_stack=lone,
    )
    assert (act.challenge(1, (AUTO,)) in legal_actions(s)) is open_to_challenge


def test_with_first_formed_protection_a_stolen_set_is_never_marked_first() -> None:
    """RULES #12 ``first_formed``: a set won in a challenge lands on top of the winner's
    stack unprotected, so it can be challenged back."""
    rules = R.with_options(bottom_protection="first_formed")
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], ["piano"] * 5, rules=rules)
    s, _ = run(s, act.challenge(1, (AUTO,)), act.CONCEDE_ACTION)
    assert [st.first for st in s.stacks[0]] == [True, False]


# --- RULES #13, #14: what opens and what answers --------------------------------------


def test_a_wild_may_open_a_challenge_without_a_matching_asset() -> None:
    """RULES #13: Silver and Gold open a challenge like a matching asset."""
    s = duel(["silver", "gold", "piano", "cabin", "scooter"], ["piano"] * 5)
    assert challenges(s) == {
        "challenge target=1 depth=top cards=silver",
        "challenge target=1 depth=top cards=gold",
    }
    s, events = apply(s, act.challenge(1, (GOLD,)))
    assert (events[0]["kind"], events[0]["cards"]) == ("classic_auto", ["gold"])
    assert (s.to_act, decision_kind(s)) == (1, "defend")


def test_a_challenge_must_open_with_one_card_of_the_sets_kind_or_a_wild() -> None:
    """RULES #13, #14: another asset does not open; nor do two cards."""
    s = duel(["classic_auto", "classic_auto", "piano", "cabin", "scooter"], ["piano"] * 5)
    assert refused(s, act.challenge(1, (PIANO,))) == "card_does_not_match"
    assert refused(s, act.challenge(1, (AUTO, AUTO))) == "too_many_cards"


def test_responses_match_the_sets_kind_not_the_previous_card() -> None:
    """RULES #14: after a Gold opening the defender may answer with a Classic Auto or a
    wild; after the defender's Silver the challenger may answer with a Classic Auto."""
    s = duel(
        ["gold", "classic_auto", "piano", "cabin", "scooter"],
        ["classic_auto", "silver", "toy_train", "piano", "jewels"],
    )
    s, _ = apply(s, act.challenge(1, (GOLD,)))
    assert labels(s) == {"play cards=classic_auto", "play cards=silver", "concede"}
    s, _ = apply(s, act.play((SILVER,)))
    assert (s.to_act, decision_kind(s)) == (0, "counter")
    assert labels(s) == {"play cards=classic_auto", "concede"}


def test_a_response_with_another_asset_or_two_cards_is_refused() -> None:
    """RULES #14: each response is one asset of the set's kind or one wild."""
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["classic_auto", "silver", "toy_train", "piano", "jewels"],
    )
    s, _ = apply(s, act.challenge(1, (AUTO,)))
    assert refused(s, act.play((TOY_TRAIN,))) == "card_does_not_match"
    assert refused(s, act.play((AUTO, SILVER))) == "too_many_cards"
    assert refused(s, act.play((GOLD,))) == "card_not_in_hand"


# --- RULES #15: who keeps the cards ---------------------------------------------------


def test_when_the_challenger_loses_every_challenge_card_joins_the_defenders_set() -> None:
    """RULES #15: the defender's set stays in place, grown by all the challenge cards;
    the challenger's stack is unchanged."""
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["gold", "piano", "piano", "piano", "piano"],
    )
    before = s.stacks[0]
    s, events = run(s, act.challenge(1, (AUTO,)), act.play((GOLD,)), act.CONCEDE_ACTION)
    end = next(e for e in events if e["type"] == "challenge_end")
    assert (end["winner"], end["set_count"]) == (1, 4)
    assert [st.cards for st in s.stacks[1]] == [
        (TOY_TRAIN, TOY_TRAIN),
        (AUTO, AUTO, AUTO, GOLD),
    ]
    assert s.stacks[0] == before


def test_when_the_challenger_wins_the_set_and_every_card_go_on_top_of_its_stack() -> None:
    """RULES #15: the winner keeps all the cards used in the battle with the set."""
    s = duel(
        ["classic_auto", "silver", "piano", "cabin", "scooter"],
        ["gold", "piano", "piano", "piano", "piano"],
    )
    s, _ = run(
        s,
        act.challenge(1, (AUTO,)),
        act.play((GOLD,)),
        act.play((SILVER,)),
        act.CONCEDE_ACTION,
    )
    assert [st.cards for st in s.stacks[1]] == [(TOY_TRAIN, TOY_TRAIN)]
    assert [st.cards for st in s.stacks[0]] == [
        (JEWELS, JEWELS),
        (AUTO, AUTO, AUTO, GOLD, SILVER),
    ]
    assert s.stacks[0][-1].kind == AUTO


# --- RULES #16: yielding ---------------------------------------------------------------


def test_defender_may_yield_while_holding_a_matching_card() -> None:
    """RULES #16: "if you are no longer able or choose not to respond, you lose"."""
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["classic_auto", "gold", "piano", "piano", "piano"],
    )
    s, _ = apply(s, act.challenge(1, (AUTO,)))
    assert labels(s) == {"play cards=classic_auto", "play cards=gold", "concede"}
    s, events = apply(s, act.CONCEDE_ACTION)
    assert types(events)[:2] == ["concede", "challenge_end"]
    assert events[1]["winner"] == 0
    assert s.stacks[0][-1].cards == (AUTO, AUTO, AUTO)


def test_challenger_may_yield_while_holding_a_matching_card() -> None:
    """RULES #16: the challenger may also stop answering and lose its cards."""
    s = duel(
        ["classic_auto", "gold", "piano", "cabin", "scooter"],
        ["silver", "piano", "piano", "piano", "piano"],
    )
    s, _ = run(s, act.challenge(1, (AUTO,)), act.play((SILVER,)))
    assert labels(s) == {"play cards=gold", "concede"}
    s, _ = apply(s, act.CONCEDE_ACTION)
    assert s.stacks[1][-1].cards == (AUTO, AUTO, AUTO, SILVER)


# --- RULES #17: responders with no (legal) cards --------------------------------------


def test_a_player_with_an_empty_hand_can_still_be_challenged() -> None:
    """RULES #17: your sets can be stolen when you are out of cards (EN21 tip)."""
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], [], deck=[])
    assert act.challenge(1, (AUTO,)) in legal_actions(s)


@pytest.mark.parametrize("auto_yield", ["empty_hand_only", "no_legal_card"])
def test_a_challenge_against_an_empty_hand_resolves_at_once(auto_yield: str) -> None:
    """RULES #17: with the responder's hand empty the challenger wins without a prompt."""
    rules = R.with_options(auto_yield=auto_yield)
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], [], rules=rules, deck=[])
    s, events = apply(s, act.challenge(1, (AUTO,)))
    assert types(events)[:2] == ["challenge", "challenge_end"]
    assert events[1]["winner"] == 0
    assert (s.to_act, decision_kind(s)) == (2, "turn")  # seat 1's empty hand is skipped
    assert s.stacks[0][-1].cards == (AUTO, AUTO, AUTO)


def test_a_defender_holding_only_unmatched_cards_is_still_asked() -> None:
    """RULES #17 ``empty_hand_only`` (default): a responder holding cards is always
    asked, even with nothing legal, so the timing never leaks "has no matching card"."""
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], ["piano"] * 5)
    s, events = apply(s, act.challenge(1, (AUTO,)))
    assert types(events) == ["challenge"]
    assert (s.to_act, decision_kind(s)) == (1, "defend")
    assert legal_actions(s) == (act.CONCEDE_ACTION,)
    assert observe(s, 1)["decision"] == {"seat": 1, "kind": "defend"}


def test_a_challenger_whose_hand_emptied_loses_when_the_defender_answers() -> None:
    """RULES #17: the challenger's last card opened; once the defender answers, the
    challenger's empty hand resolves the challenge for the defender at once."""
    s = duel(["classic_auto"], ["gold", "piano", "piano", "piano", "piano"], deck=[])
    s, events = run(s, act.challenge(1, (AUTO,)), act.play((GOLD,)))
    end = next(e for e in events if e["type"] == "challenge_end")
    assert end["winner"] == 1
    assert s.stacks[1][-1].cards == (AUTO, AUTO, AUTO, GOLD)


def test_with_no_legal_card_auto_yield_an_unarmed_defender_loses_at_once() -> None:
    """RULES #17 ``no_legal_card``: a responder with no legal card is not asked."""
    rules = R.with_options(auto_yield="no_legal_card")
    s = duel(["classic_auto", "piano", "piano", "cabin", "scooter"], ["piano"] * 5, rules=rules)
    s, events = apply(s, act.challenge(1, (AUTO,)))
    assert types(events)[:2] == ["challenge", "challenge_end"]
    assert events[1]["winner"] == 0


def test_with_no_legal_card_auto_yield_an_armed_defender_is_asked() -> None:
    """RULES #17 ``no_legal_card``: a responder with a legal card still decides."""
    rules = R.with_options(auto_yield="no_legal_card")
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["silver"] + ["piano"] * 4,
        rules=rules,
    )
    s, _ = apply(s, act.challenge(1, (AUTO,)))
    assert (s.to_act, decision_kind(s)) == (1, "defend")
    assert labels(s) == {"play cards=silver", "concede"}


def test_with_no_legal_card_auto_yield_an_unarmed_challenger_loses_at_once() -> None:
    """RULES #17 ``no_legal_card``: after the defence, a challenger with no legal card
    loses without a prompt."""
    rules = R.with_options(auto_yield="no_legal_card")
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["silver"] + ["piano"] * 4,
        rules=rules,
    )
    s, events = run(s, act.challenge(1, (AUTO,)), act.play((SILVER,)))
    assert types(events)[:3] == ["challenge", "play", "challenge_end"]
    assert events[2]["winner"] == 1


# --- RULES #18, #19: refills after a challenge ----------------------------------------


def fought(deck: Cards) -> tuple[State, list[dict[str, Any]]]:
    """Seat 0 spends 2 cards and seat 1 one card in a challenge seat 1 then concedes."""
    s = duel(
        ["classic_auto", "classic_auto", "piano", "cabin", "scooter"],
        ["gold", "piano", "piano", "piano", "piano"],
        deck=deck,
    )
    return run(
        s, act.challenge(1, (AUTO,)), act.play((GOLD,)), act.play((AUTO,)), act.CONCEDE_ACTION
    )


def test_the_active_player_draws_first_then_the_defender() -> None:
    """RULES #18: the active player refills, then the defender who used cards."""
    s, events = fought(["jewels", "jewels", "cabin", "scooter"])
    draws = [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]
    assert draws == [(0, 2), (1, 1)]
    assert s.hands[0].counts[JEWELS] == 2
    assert s.hands[1].counts[CABIN] == 1
    assert (s.hands[0].size, s.hands[1].size) == (5, 5)
    assert s.deck_left == (SCOOTER,)


@pytest.mark.parametrize(
    ("deck", "defender_draws"),
    [(["jewels", "jewels", "cabin"], 1), (["jewels", "jewels"], 0), (["jewels"], 0)],
)
def test_when_the_deck_runs_out_mid_refill_the_defender_gets_what_remains(
    deck: list[str], defender_draws: int
) -> None:
    """RULES #18: the defender gets what remains after the active player, or nothing."""
    s, events = fought(deck)
    draws = {e["seat"]: e["count"] for e in events if e["type"] == "draw"}
    assert draws.get(0) == min(2, len(deck))
    assert draws.get(1, 0) == defender_draws
    assert s.hands[1].size == 4 + defender_draws


def test_a_defender_who_played_no_card_draws_nothing() -> None:
    """RULES #18: only a defender who used cards to defend refills."""
    s = duel(
        ["classic_auto", "piano", "piano", "cabin", "scooter"],
        ["gold", "piano", "piano", "piano", "piano"],
    )
    s, events = run(s, act.challenge(1, (AUTO,)), act.CONCEDE_ACTION)
    assert [e["seat"] for e in events if e["type"] == "draw"] == [0]


def test_nobody_draws_while_a_challenge_is_in_progress() -> None:
    """RULES #19: cards spent in a challenge are replaced only once it has ended."""
    s = duel(
        ["classic_auto", "classic_auto", "piano", "cabin", "scooter"],
        ["gold", "silver", "piano", "piano", "piano"],
    )
    deck = s.deck_left
    s, events = run(s, act.challenge(1, (AUTO,)), act.play((GOLD,)), act.play((AUTO,)))
    assert "draw" not in types(events)
    assert s.deck_left == deck
    assert (s.hands[0].size, s.hands[1].size) == (3, 4)
    s, more = apply(s, act.play((SILVER,)))
    assert "draw" not in types(more)
    assert s.challenge is not None
    assert s.to_act == 0


# --- EN21 worked example ----------------------------------------------------------------


def test_ezra_takes_cathys_auto_set_as_in_the_rulebook_example() -> None:
    """EN21 "Challenging a Player" example (RULES #13-15, #18): Ezra challenges Cathy's
    Auto set with an Auto; Cathy responds with Gold; Ezra responds with an Auto; Cathy
    cannot respond and loses. Ezra keeps the three played cards as part of his new set.
    Ezra (seat 0) then draws back up, then Cathy (seat 1)."""
    ezra, cathy = 0, 1
    s = duel(
        ["classic_auto", "classic_auto", "piano", "cabin", "scooter"],
        ["gold", "toy_train", "piano", "piano", "jewels"],
        deck=["cabin", "cabin", "piano", "scooter"],
    )
    s, _ = apply(s, act.challenge(cathy, (AUTO,)), seat=ezra)
    assert (s.to_act, decision_kind(s)) == (cathy, "defend")
    s, _ = apply(s, act.play((GOLD,)), seat=cathy)
    assert (s.to_act, decision_kind(s)) == (ezra, "counter")
    s, _ = apply(s, act.play((AUTO,)), seat=ezra)
    # Cathy holds cards but none that matches: she is asked, and can only give up
    assert (s.to_act, decision_kind(s)) == (cathy, "defend")
    assert legal_actions(s) == (act.CONCEDE_ACTION,)
    s, events = apply(s, act.CONCEDE_ACTION, seat=cathy)
    end = next(e for e in events if e["type"] == "challenge_end")
    assert (end["winner"], end["kind"], end["set_count"]) == (ezra, "classic_auto", 5)
    won = s.stacks[ezra][-1]
    assert (won.kind, sorted(won.cards)) == (AUTO, sorted([AUTO, AUTO, AUTO, GOLD, AUTO]))
    assert [st.cards for st in s.stacks[cathy]] == [(TOY_TRAIN, TOY_TRAIN)]
    draws = [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]
    assert draws == [(ezra, 2), (cathy, 1)]
    assert s.to_act == 1
    assert decision_kind(s) == "turn"
