"""One handler per action type: each changes the copy ``s`` that ``play.apply`` made.

``handle`` calls the handler of an action's type (``action >> 20``, see ``actions``);
``apply`` and ``resign`` go through it, so a handler is one call away on the hot path.
"""

from __future__ import annotations

from . import actions as act
from .actions import (
    CHALLENGE,
    CHOOSE_MOVE,
    CONCEDE,
    DISCARD,
    DRAFT,
    END_TURN,
    IMPROVE,
    MOVE,
    PAIR,
    PAIR_DISCARD,
    PASS,
    PLAY,
    SWAP,
)
from .cards import ASSETS, PENNY_JAR
from .cards import MOVE as MOVE_CARD
from .cards import SWAP as SWAP_CARD
from .draft import move_set, swap_tops
from .events import Event
from .flow import Events, action_done, ask, draw, end_turn, form, next_demand, resolve
from .hands import Hand, replace_at, take, take_all
from .legal import draft_kind, draft_opponent
from .state import (
    DRAFT_CHALLENGE,
    DRAFTED,
    State,
    asset_set,
    challenge_of,
    grown,
    set_stack,
)


def _pair(s: State, a: int, ev: Events) -> None:
    seat = s.to_act
    x, y = (a >> 16) & 15, (a >> 12) & 15
    hands = list(s.hands)
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
    hands = list(s.hands)
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
    hands = list(s.hands)
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
    ev.append(s.table.events.challenge(seat, a, kind))
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
    # the first card a neighbour plays against a drafted set opens a draft challenge
    ev.append(s.table.events.play(seat, a, s.kind == DRAFT_CHALLENGE))
    ask(s, ev)


def _give_up(s: State, a: int, ev: Events) -> None:
    shared = s.table.events
    ev.append((shared.concede if a >> 20 == CONCEDE else shared.pass_)[s.to_act])
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
    ev.append(s.table.events.end_turn[s.to_act])
    end_turn(s, ev)


def handle(s: State, a: int, ev: Events) -> None:
    """Apply action ``a`` to ``s``, the copy ``play.apply`` made, through its type's handler.

    Direct calls, the most frequent types first: compiled (make engine), a call through a
    table of handlers would box ``a`` and parse its arguments on every decision.
    """
    t = a >> 20
    if t == DISCARD:
        _discard(s, a, ev)
    elif t == PAIR:
        _pair(s, a, ev)
    elif t == CHALLENGE:
        _challenge(s, a, ev)
    elif t in (CONCEDE, PASS):
        _give_up(s, a, ev)
    elif t == PAIR_DISCARD:
        _pair_discard(s, a, ev)
    elif t == PLAY:
        _play(s, a, ev)
    elif t == DRAFT:
        _draft(s, a, ev)
    elif t == IMPROVE:
        _improve(s, a, ev)
    elif t == SWAP:
        _swap(s, a, ev)
    elif t == MOVE:
        _move(s, a, ev)
    elif t == END_TURN:
        _end_turn(s, a, ev)
    else:
        assert t == CHOOSE_MOVE, "apply and resign hand over only listed actions"
        _choose_move(s, a, ev)
