"""Why an action is not legal: the precise, stable error for an action outside legal_actions.

Only called on the error path; legality itself is decided by ``legal.legal_actions``.
"""

from __future__ import annotations

from . import actions as act
from .cards import ASSETS, KINDS, MOVE, PENNY_JAR, SILVER, SWAP
from .errors import EngineError, IllegalAction, MalformedAction
from .hands import holds
from .legal import draft_piles_for, is_protected, weight_one
from .state import (
    COUNTER,
    DECISION_NAMES,
    DEFEND,
    DRAFT_CHALLENGE,
    MOVE_CHOICE,
    SECOND_ACTION,
    TURN,
    State,
)

_TURN_TYPES = frozenset(
    (act.PAIR, act.PAIR_DISCARD, act.DISCARD, act.CHALLENGE)
    + (act.DRAFT, act.IMPROVE, act.SWAP, act.MOVE)
)
_ANSWERS = {
    TURN: _TURN_TYPES,
    SECOND_ACTION: _TURN_TYPES | {act.END_TURN},
    DEFEND: frozenset((act.PLAY, act.CONCEDE)),
    COUNTER: frozenset((act.PLAY, act.CONCEDE)),
    DRAFT_CHALLENGE: frozenset((act.PLAY, act.PASS)),
    MOVE_CHOICE: frozenset((act.CHOOSE_MOVE,)),
}


def _err(code: str, message: str) -> IllegalAction:
    return IllegalAction(message, code=code)


def diagnose(s: State, action: object) -> EngineError:
    """The error explaining why ``action`` is not among ``legal_actions(s)``."""
    if type(action) is not int or action < 0 or action >> 20 >= len(act.TYPE_NAMES):
        return MalformedAction("an action must be one of the packed ints legal_actions lists")
    kind, a, b, _, _ = act.unpack(action)
    if (a >= KINDS and a != 15) or (b >= KINDS and b != 15):
        return MalformedAction("unknown card in action")
    name = act.TYPE_NAMES[kind]
    if kind == act.RESIGN:
        return _err("wrong_decision", "resigning is not an answer to a decision; use resign")
    if kind not in _ANSWERS[s.kind]:
        return _err(
            "wrong_decision", f"a {name} action does not answer a {DECISION_NAMES[s.kind]} decision"
        )
    hand = s.hands[s.to_act]
    cards = act.cards_of(action)
    table = s.table
    for card, needed, playing in (
        (SWAP, kind == act.SWAP, table.swap),
        (MOVE, kind == act.MOVE, table.move),
    ):
        if needed and not playing:
            return _err("rule_disabled", f"{name} cards are not in play (RULES #30-32)")
        if needed:
            cards = (card,)
    if cards and not holds(hand, cards):
        return _err("card_not_in_hand", "your hand does not hold that card")
    check = _CHECKS.get(kind)
    found = check(s, action) if check else None
    return found or _err("illegal_action", f"that {name} action is not legal here")


def _pair(s: State, action: int) -> IllegalAction | None:
    cards = act.cards_of(action)
    if len(cards) != 2 or cards[0] >= ASSETS or cards[1] > PENNY_JAR:
        return _err("invalid_set", "a set is an asset with its twin or a wild (RULES #7)")
    if cards[1] < ASSETS and cards[0] != cards[1]:
        return _err("invalid_set", "two different assets do not make a set (RULES #7)")
    return None


def _pair_discard(s: State, action: int) -> IllegalAction | None:
    if not s.discard:
        return _err("discard_empty", "the discard pile is empty (RULES #3)")
    return _err("discard_mismatch", "that card does not pair with the discard top (RULES #6)")


def _challenge(s: State, action: int) -> IllegalAction | None:
    target, depth = (action >> 8) & 15, action & 255
    seat, t = s.to_act, s.table
    if not s.stacks[seat]:
        return _err("no_own_set", "you must own a set before you challenge (RULES #10)")
    if target == seat or target >= t.seats:
        return _err("invalid_target", "challenge another seat at the table")
    if depth > 1 or (depth == 1 and not t.second):
        return _err("rule_disabled", "second-from-top challenges are off (RULES #28)")
    stack = s.stacks[target]
    i = len(stack) - 1 - depth
    if i < 0 or is_protected(stack, i, t.first_formed):
        return _err("set_protected", "that set cannot be challenged (RULES #11, #12, #28)")
    if (seat, target) in s.bans:
        return _err("rechallenge_banned", "you lost to this seat this turn (RULES #26)")
    if _weight(s, action, stack[i].kind, opening=depth == 1) is not None:
        return _weight(s, action, stack[i].kind, opening=depth == 1)
    return None


def _weight(s: State, action: int, kind: int, *, opening: bool) -> IllegalAction | None:
    cards = act.cards_of(action)
    t = s.table
    if any(c != kind and not SILVER <= c <= PENNY_JAR for c in cards):
        return _err("card_does_not_match", "play an asset of the set's kind or a wild (RULES #14)")
    demand = 2 if opening else (s.challenge.demand if s.challenge else 1)
    single_ok = cards == (PENNY_JAR,) and t.penny
    if demand == 2 and len(cards) == 1 and not single_ok:
        return _err("insufficient_weight", "answer with two cards or a Penny Jar (RULES #27, #28)")
    if demand == 1 and len(cards) == 2:
        return _err("too_many_cards", "play a single card here (RULES #14, #27)")
    if len(cards) == 2 and any(c not in weight_one(t, kind) for c in cards):
        return _err(
            "insufficient_weight", "a two-card play is made of weight-1 cards (RULES 2.8.1)"
        )
    return None


def _play(s: State, action: int) -> IllegalAction | None:
    assert s.challenge is not None
    return _weight(s, action, s.challenge.kind, opening=False)


def _draft(s: State, action: int) -> IllegalAction | None:
    t = s.table
    if not t.draft or not s.piles:
        return _err("rule_disabled", "there are no draft piles in this game (RULES #34)")
    mask = action & 255
    allowed = draft_piles_for(t, s.to_act)
    used = [p for p in range(8) if mask >> p & 1]
    if not used or any(p not in allowed or not s.piles[p] for p in used):
        return _err("pile_unavailable", "draft only from non-empty piles beside you (RULES #34)")
    if t.seats == 3 and len(used) != 1:
        return _err("pile_unavailable", "with 3 seats draft from exactly one pile (RULES #34)")
    return _err("invalid_set", "those cards do not form one set with an asset (RULES #34)")


def _improve(s: State, action: int) -> IllegalAction | None:
    if not s.table.improve:
        return _err("rule_disabled", "Improve a Set is off (RULES #29)")
    if not s.stacks[s.to_act]:
        return _err("no_own_set", "you have no set to improve (RULES #29)")
    return _err(
        "card_does_not_match", "add an asset of your top set's kind, never a wild (RULES #29)"
    )


def _target(s: State, action: int) -> IllegalAction | None:
    target = (action >> 8) & 15
    if target >= s.table.seats:
        return _err("invalid_target", f"there is no seat {target}")
    return _err("invalid_target", "that seat's stack cannot be the target (RULES #30, #31)")


_CHECKS = {
    act.PAIR: _pair,
    act.PAIR_DISCARD: _pair_discard,
    act.CHALLENGE: _challenge,
    act.DRAFT: _draft,
    act.IMPROVE: _improve,
    act.SWAP: _target,
    act.MOVE: _target,
    act.PLAY: _play,
}
