"""The engine's entry points: new_game, legal_actions, apply, resign, replay.

``apply(state, action)`` validates against ``legal_actions`` and returns a new State
plus the public events the action caused; the given state is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from . import actions as act
from .cards import ASSETS, PENNY_JAR
from .cards import MOVE as MOVE_CARD
from .cards import SWAP as SWAP_CARD
from .diagnose import diagnose
from .draft import move_set, swap_tops
from .errors import GameOver, IllegalAction, NotYourTurn
from .events import Event
from .flow import (
    Events,
    action_done,
    ask,
    deal,
    draw,
    end_turn,
    finish,
    form,
    next_demand,
    resolve,
)
from .hands import Hand, replace_at, take, take_all
from .legal import draft_kind, draft_opponent, legal_actions
from .rules import RuleSet
from .state import (
    DECISION_NAMES,
    DEPTH_NAMES,
    DRAFT_CHALLENGE,
    DRAFTED,
    MOVE_CHOICE,
    NEW_ROUND,
    SECOND_ACTION,
    TURN,
    State,
    asset_set,
    blank_state,
    challenge_of,
    grown,
    set_stack,
)

_new = object.__new__


class Decision(NamedTuple):
    """Who must act now, and what kind of decision it is."""

    seat: int
    kind: str
    version: int


def new_game(rules: RuleSet, seed: int) -> State:
    """A new game, its first round dealt from ``seed``."""
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError("seed must be an integer from 0 to 2**63 - 1")
    s = blank_state(rules, seed)
    ev: Events = []
    deal(s, ev)
    s.log = (tuple(ev), None)
    return s


def decision(state: State) -> Decision | None:
    """The pending decision, or None once the game is over."""
    if state.over:
        return None
    return Decision(state.to_act, DECISION_NAMES[state.kind], state.version)


def apply(
    state: State, action: int, seat: int | None = None
) -> tuple[State, tuple[dict[str, Any], ...]]:
    """Apply one action for the seat that must act; raise IllegalAction if it may not."""
    if seat is not None and seat != state.to_act and not state.over:
        raise NotYourTurn(f"seat {state.to_act} must act now, not seat {seat}")
    legal = state._legal
    if legal is None:
        legal = legal_actions(state)
    # once the game is over nothing is legal; a bool or float may equal a listed int
    if action not in legal or type(action) is not int:
        raise GameOver("the game is over") if state.over else diagnose(state, action)
    s = _new(State)  # state._copy(), inlined: it is a fifth of a classic decision's work
    s.table = state.table
    s.game = state.game
    s.over = state.over
    s.version = state.version + 1
    s.deck = state.deck
    s.drawn = state.drawn
    s.discard = state.discard
    s.removed = state.removed
    s.hands = state.hands
    s.stacks = state.stacks
    s.tops = state.tops
    s.piles = state.piles
    s.log = state.log
    s.turn = state.turn
    s.action_no = state.action_no
    s.to_act = state.to_act
    s.kind = state.kind
    s.challenge = state.challenge
    s.refill = state.refill
    s.bans = state.bans
    s.flips = state.flips
    s.moves = state.moves
    s._legal = None
    ev: Events = []
    _HANDLERS[action >> 20](s, action, ev)
    if s.log is NEW_ROUND or s.game.resigned:
        return _commit(state, s, ev)
    events = tuple(ev)  # _commit's common case, inlined for the hot path
    s.log = (events, state.log)
    return s, events


def resign(state: State, seat: int) -> tuple[State, tuple[dict[str, Any], ...]]:
    """A seat leaves: the engine plays its default actions and ranks it last."""
    if state.over:
        raise GameOver("the game is over")
    if type(seat) is not int or not 0 <= seat < state.table.seats:
        raise IllegalAction(f"there is no seat {seat}", code="no_such_seat")
    if state.game.resigned >> seat & 1:
        raise IllegalAction(f"seat {seat} has already resigned", code="already_resigned")
    s = state._copy()
    s.game = s.game._replace(resigned=s.game.resigned | 1 << seat)
    ev: Events = [Event({"type": "resign", "seat": seat})]
    live = [i for i in range(s.table.seats) if not s.game.resigned >> i & 1]
    if len(live) == 1:
        finish(s, (live[0],), ev)
    return _commit(state, s, ev)


def replay(rules: RuleSet, seed: int, log: Iterable[int]) -> State:
    """Rebuild a game exactly from its seed and action log (resignations included)."""
    s = new_game(rules, seed)
    for action in log:
        if type(action) is int and action >> 20 == act.RESIGN:
            s = resign(s, (action >> 8) & 15)[0]
        else:
            s = apply(s, action)[0]
    return s


def default_action(state: State) -> int:
    """The safe answer to the pending decision: discard the cheapest card, concede, pass."""
    kind = state.kind
    if kind == TURN:
        values = state.table.values
        card = min(state.hands[state.to_act].distinct, key=lambda c: (values[c], c))
        return act.pack(act.DISCARD, card)
    if kind == SECOND_ACTION:
        return act.END_TURN_ACTION
    if kind == MOVE_CHOICE:
        return act.choose_move(act.TOP_TO_BOTTOM)
    return act.PASS_ACTION if kind == DRAFT_CHALLENGE else act.CONCEDE_ACTION


def _commit(state: State, s: State, ev: Events) -> tuple[State, tuple[dict[str, Any], ...]]:
    """Play resigned seats' decisions, bump the version and extend the public history."""
    while not s.over and s.game.resigned >> s.to_act & 1:
        action = default_action(s)
        _HANDLERS[action >> 20](s, action, ev)
    s._legal = None
    events = tuple(ev)
    if s.log is NEW_ROUND:  # a round was dealt: its history starts at its round_start
        start = max(i for i, e in enumerate(ev) if e["type"] == "round_start")
        s.log = (events[start:], None)
    else:
        s.log = (events, state.log)
    return s, events


# --- handlers: each changes the copy ``s`` for one action type ----------------------


def _pair(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    x, y = (a >> 16) & 15, (a >> 12) & 15
    hands = [*s.hands]
    hand = hands[seat]
    hand = hand.step[16 + x] or take(hand, x)
    hands[seat] = hand.step[16 + y] or take(hand, y)
    t = s.table
    form(s, seat, x, (x, y), 1 if t.hide else -1)  # RULES #9, 2.8.11: the second card is tucked
    ev.append(t.events.pair[seat][x][y])
    if t.two_actions:
        _continue(s, ev, hands)
    else:  # no second action, and pairing reveals no draft pile: the turn ends
        end_turn(s, ev, hands)


def _pair_discard(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    card = (a >> 16) & 15
    top, s.discard = s.discard  # type: ignore[misc]  # a legal discard pair has a top
    hands = [*s.hands]
    hands[seat] = take(hands[seat], card)
    t = s.table
    if top < ASSETS:  # RULES 2.8.11: the hand card paired with a discarded asset is tucked
        form(s, seat, top, (top, card), 1 if t.hide else -1)
    else:  # a wild taken from the discard; the hand asset defines the set and shows
        form(s, seat, card, (card, top), -1)
    ev.append(t.events.pair_discard[seat][top][card])
    if t.two_actions:
        _continue(s, ev, hands)
    else:
        end_turn(s, ev, hands)


def _discard(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    card = (a >> 16) & 15
    hands = [*s.hands]
    hand = hands[seat]
    hands[seat] = hand.step[16 + card] or take(hand, card)
    removed = card > PENNY_JAR  # RULES #32: a discarded action card leaves play
    if removed:
        s.removed = s.removed + (card,)
    else:
        s.discard = (card, s.discard)
    t = s.table
    ev.append(t.events.discard[seat][card])
    if not t.two_actions:  # no second action, and discarding reveals no draft pile
        end_turn(s, ev, hands)
    elif s.action_no == 1:  # RULES #26: a first-action discard refills at once
        s.hands = tuple(hands)
        draw(s, seat, ev)
        action_done(s, ev)
    else:
        _continue(s, ev, hands)


def _continue(s: State, ev: Events, hands: list[Hand]) -> None:
    """Finish a pair or discard under two actions: a second action may follow (RULES #26)."""
    s.hands = tuple(hands)
    action_done(s, ev)


def _challenge(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    cards = act.cards_of(a)
    target, depth = (a >> 8) & 15, a & 255
    s.hands = replace_at(s.hands, seat, take_all(s.hands[seat], cards))
    stack = s.stacks[target]
    kind = stack[len(stack) - 1 - depth].kind
    demand = next_demand(s, cards, 1) if depth == 0 else 1  # RULES 2.8.1
    s.challenge = challenge_of(seat, target, depth, kind, cards, seat, target, demand, None, ())
    keys = s.table.keys
    ev.append(
        Event(
            {
                "type": "challenge",
                "seat": seat,
                "target": target,
                "depth": DEPTH_NAMES[depth],
                "kind": keys[kind],
                "cards": [keys[c] for c in cards],
            }
        )
    )
    ask(s, ev)


def _play(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    ch = s.challenge
    assert ch is not None
    cards = act.cards_of(a)
    s.hands = replace_at(s.hands, seat, take_all(s.hands[seat], cards))
    if seat != s.turn and seat not in s.refill:  # RULES #18: refills after the active seat
        s.refill = s.refill + (seat,)
    other = ch.holder if seat == ch.challenger else ch.challenger
    s.challenge = challenge_of(
        ch.challenger,
        ch.holder,
        ch.depth,
        ch.kind,
        ch.played + cards,
        seat,
        other,
        next_demand(s, cards, ch.demand),
        ch.drafted,
        ch.piles,
    )
    keys = s.table.keys
    # the first card a neighbour plays against a drafted set opens a draft challenge
    kind = "draft_challenge" if s.kind == DRAFT_CHALLENGE else "play"
    ev.append(Event({"type": kind, "seat": seat, "cards": [keys[c] for c in cards]}))
    ask(s, ev)


def _give_up(s: State, a: int, ev: Events) -> None:
    shared = s.table.events
    ev.append((shared.concede if a >> 20 == act.CONCEDE else shared.pass_)[s.to_act])
    resolve(s, ev)


def _draft(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    t = s.table
    card, mask = (a >> 16) & 15, a & 255
    used = tuple(p for p in range(3) if mask >> p & 1)
    tops = tuple(s.piles[p][-1] for p in used)
    piles = s.piles
    for p in used:
        piles = replace_at(piles, p, piles[p][:-1])
    s.piles = piles
    s.hands = replace_at(s.hands, seat, take(s.hands[seat], card))
    kind = draft_kind(card, list(tops))
    drafted = asset_set(kind, (card, *tops), -1, 0, False)  # RULES 2.8.11: drafted cards are public
    keys = t.keys
    ev.append(
        Event(
            {
                "type": "draft",
                "seat": seat,
                "card": keys[card],
                "piles": list(used),
                "kind": keys[kind],
                "cards": [keys[c] for c in drafted.cards],
            }
        )
    )
    opp = draft_opponent(t, seat, used[0])
    s.challenge = challenge_of(opp, seat, DRAFTED, kind, (), seat, opp, 1, drafted, used)
    asked = not (  # RULES 2.8.2: who is not asked
        (t.ban and (opp, seat) in s.bans) or (t.draft_needs_set and not s.stacks[opp])
    )
    if asked:
        ask(s, ev)
    else:
        resolve(s, ev)


def _improve(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    card = (a >> 16) & 15
    s.hands = replace_at(s.hands, seat, take(s.hands[seat], card))
    stack = s.stacks[seat]
    top = stack[-1]
    set_stack(s, seat, stack[:-1] + (grown(top, (card,)),))
    ev.append(Event({"type": "improve", "seat": seat, "card": s.table.keys[card]}))
    action_done(s, ev)


def _swap(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    target = (a >> 8) & 15
    s.hands = replace_at(s.hands, seat, take(s.hands[seat], SWAP_CARD))
    s.removed = s.removed + (SWAP_CARD,)
    swap_tops(s, seat, target)
    ev.append(Event({"type": "swap", "seat": seat, "target": target}))
    action_done(s, ev)


def _move(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    target, direction = (a >> 8) & 15, a & 255
    s.hands = replace_at(s.hands, seat, take(s.hands[seat], MOVE_CARD))
    s.removed = s.removed + (MOVE_CARD,)
    move_set(s, target, direction)
    ev.append(
        Event(
            {"type": "move", "seat": seat, "target": target, "direction": act.DIRECTIONS[direction]}
        )
    )
    action_done(s, ev)


def _choose_move(s: State, a: int, ev: Events) -> None:
    chooser, target = s.moves[0]
    s.moves = s.moves[1:]
    direction = a & 255
    move_set(s, target, direction)
    ev.append(
        Event(
            {
                "type": "choose_move",
                "seat": chooser,
                "target": target,
                "direction": act.DIRECTIONS[direction],
            }
        )
    )
    action_done(s, ev)


def _end_turn(s: State, a: int, ev: Events) -> None:
    ev.append(Event({"type": "end_turn", "seat": s.to_act}))
    end_turn(s, ev)


_HANDLERS: tuple[Callable[[State, int, Events], None], ...] = (
    _pair,
    _pair_discard,
    _discard,
    _challenge,
    _draft,
    _improve,
    _swap,
    _move,
    _end_turn,
    _play,
    _give_up,
    _give_up,
    _choose_move,
)
