"""Legal actions at the current decision, in a deterministic order.

Every action listed here applies (``play.apply``), and ``apply`` refuses every action
not listed: the list is the single source of truth for legality (RULES.md section 2).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from .actions import (
    CHALLENGE,
    CHOOSE_MOVE,
    CONCEDE_ACTION,
    DRAFT,
    END_TURN_ACTION,
    IMPROVE,
    MOVE,
    PAIR_DISCARD,
    PASS_ACTION,
    PLAY,
    SWAP,
    pack,
)
from .cards import ASSETS, GOLD, NO_CARD, PENNY_JAR, SILVER
from .cards import MOVE as MOVE_CARD
from .cards import SWAP as SWAP_CARD
from .hands import AGAINST_CARDS, Hand, discard_pairs, shared
from .state import DRAFT_CHALLENGE, MOVE_CHOICE, OVER, SECOND_ACTION, AssetSet, State
from .table import Table

_NONE_B: Final = NO_CARD << 12
_PD: Final = (PAIR_DISCARD << 20) | _NONE_B
_PLAY: Final = (PLAY << 20) | _NONE_B
_CHALLENGE_BASE: Final = tuple((CHALLENGE << 20) | _NONE_B | (seat << 8) for seat in range(8))
# Every challenge of a top set open to a hand, by target seat and Hand.against code, as
# shared int objects: a turn's challenges are a few tuples joined, no int made
_TOP_CHALLENGES: Final = tuple(
    tuple([shared([base | card << 16 for card in cards]) for cards in AGAINST_CARDS])
    for base in _CHALLENGE_BASE
)
_SECOND_BASE: Final = tuple((CHALLENGE << 20) | (seat << 8) | 1 for seat in range(8))  # RULES #28
_MOVE_CHOICES: Final = (
    pack(CHOOSE_MOVE, NO_CARD, NO_CARD, 0, 0),
    pack(CHOOSE_MOVE, NO_CARD, NO_CARD, 0, 1),
)


def legal_actions(s: State) -> tuple[int, ...]:
    """Every legal action for the seat that must act now (empty once the game is over)."""
    acts = s._legal
    if acts is None:
        kind = s.kind
        if kind <= SECOND_ACTION:
            acts = _plain_turn(s) if s.table.plain_turns else _turn(s)
        elif kind == MOVE_CHOICE:
            acts = _MOVE_CHOICES
        elif kind == OVER:
            acts = ()
        else:
            acts = _responses(s)
        s._legal = acts
    return acts


def _plain_turn(s: State) -> tuple[int, ...]:
    """A turn under the default rules (RULES #6-14): the ladder's hot path, kept lean."""
    seat = s.to_act
    hand = s.hands[seat]
    discard = s.discard
    # "is not None", not truthiness: compiled, a pile's truth value boxes a tuple
    acts = hand.opening[discard[0] if discard is not None else NO_CARD]
    if s.stacks[seat]:  # RULES #10: only a seat that owns a set may challenge
        tops = s.tops
        against = hand.against  # RULES #13, #14: a matching asset or a wild
        for target in s.table.others[seat]:
            kind = tops[target]
            if kind >= 0:  # RULES #11: a top set above a protected bottom set
                acts += _TOP_CHALLENGES[target][against[kind]]
    return acts


def _turn(s: State) -> tuple[int, ...]:
    t = s.table
    seat = s.to_act
    hand = info = s.hands[seat]
    acts = list(info.pairs)
    discard = s.discard
    if discard is not None:
        top = discard[0]
        acts += discard_pairs(
            top, hand.counts, hand.assets, hand.wilds, t.pair_wild_hand, t.pair_wild_discard
        )
    acts += info.discards  # RULES #20: discarding is always legal
    mine = s.stacks[seat]
    if mine:
        if t.plain_challenges:
            wilds = info.wilds
            for target, stack in enumerate(s.stacks):
                if len(stack) > 1 and target != seat:  # RULES #10, #11: the bottom set is safe
                    base = _CHALLENGE_BASE[target]
                    kind = stack[-1].kind
                    if hand.counts[kind]:  # RULES #13, #14: a matching asset or a wild
                        acts.append(base | kind << 16)
                    for w in wilds:
                        acts.append(base | w << 16)
        else:
            _challenges(s, t, seat, hand, info, acts)
        kind = mine[-1].kind
        if t.improve and hand.counts[kind]:  # RULES #29: any top set, even a lone one
            acts.append(pack(IMPROVE, kind))
    if t.draft and s.piles:
        _drafts(s, t, seat, info, acts)
    if t.actions:
        _action_cards(s, t, seat, hand, acts)
    if s.kind == SECOND_ACTION:
        acts.append(END_TURN_ACTION)  # RULES 2.8.4: "end turn" only for the second action
    return tuple(acts)


def is_protected(stack: tuple[AssetSet, ...], index: int, first_formed: bool) -> bool:
    """Whether the set at ``index`` may not be challenged (RULES #11, #12)."""
    return stack[index].first if first_formed else index == 0


def _challenges(s: State, t: Table, seat: int, hand: Hand, info: Hand, acts: list[int]) -> None:
    """RULES #10-14, #26, #28: challenges open to a seat that owns a set (general case)."""
    wilds = info.wilds
    bans = s.bans
    ff = t.first_formed
    for target, stack in enumerate(s.stacks):
        n = len(stack)
        if n < 1 or target == seat or (bans and (seat, target) in bans):
            continue
        top = stack[-1]
        if (not top.first) if ff else n > 1:  # RULES #11, #12: the bottom set is safe
            base = _CHALLENGE_BASE[target]
            kind = top.kind
            if hand.counts[kind]:
                acts.append(base | kind << 16)
            for w in wilds:
                acts.append(base | w << 16)
        if t.second and n > 1 and not is_protected(stack, n - 2, ff):
            base = _SECOND_BASE[target]
            for cards in _opening_cards(t, info, stack[-2].kind):
                acts.append(base | cards)


def weight_one(t: Table, kind: int) -> tuple[int, ...]:
    """Cards that weigh 1 against a set of ``kind`` (RULES #27, 2.8.1)."""
    return (kind, SILVER, GOLD) if t.penny else (kind, SILVER, GOLD, PENNY_JAR)


def card_pairs(info: Hand, allowed: tuple[int, ...]) -> list[tuple[int, int]]:
    """Distinct unordered pairs of hand cards drawn from ``allowed``, each ascending."""
    pool = [c for c in info.cards if c in allowed]
    out: list[tuple[int, int]] = []
    for i in range(len(pool)):
        for j in range(i + 1, len(pool)):
            p = (pool[i], pool[j])
            if p not in out:
                out.append(p)
    return out


def openings(t: Table, info: Hand, kind: int) -> list[tuple[int, int]]:
    """RULES #28: two cards (assets of the kind and/or wilds), or a lone Penny Jar."""
    out = card_pairs(info, weight_one(t, kind))
    if t.penny and PENNY_JAR in info.distinct:
        out.append((PENNY_JAR, NO_CARD))
    return out


@lru_cache(maxsize=1 << 16)
def _opening_cards(t: Table, hand: Hand, kind: int) -> tuple[int, ...]:
    """``openings`` packed into an action's card fields (cached: hands are interned)."""
    return tuple([a << 16 | b << 12 for a, b in openings(t, hand, kind)])


def draft_piles_for(t: Table, seat: int) -> tuple[int, ...]:
    """The piles a seat may draft from: all three (2p) or the two beside it (3p, RULES #34)."""
    if t.seats == 2:
        return (0, 1, 2)
    return tuple(sorted({seat, (seat - 1) % 3}))


def draft_opponent(t: Table, seat: int, pile: int) -> int:
    """Who may challenge a draft: the opponent (2p) or the other seat beside the pile (3p)."""
    if t.seats == 2:
        return 1 - seat
    return (pile + 1) % 3 if seat == pile else pile


def draft_kind(card: int, tops: list[int]) -> int:
    """The asset kind of a drafted set, or -1 when the cards cannot form one (RULES #34)."""
    kind = card if card < ASSETS else -1
    if card > PENNY_JAR:
        return -1
    for c in tops:
        if c < ASSETS:
            if kind not in (-1, c):
                return -1
            kind = c
        elif c > PENNY_JAR:
            return -1
    return kind


def _drafts(s: State, t: Table, seat: int, info: Hand, acts: list[int]) -> None:
    """RULES #34: one hand card plus draft-pile tops forming one set with an asset."""
    piles = s.piles
    tops = [(p, piles[p][-1]) for p in draft_piles_for(t, seat) if piles[p] and p not in s.flips]
    if not tops:
        return
    if t.seats == 2:
        masks = range(1, 1 << len(tops))
        chosen = [[tops[i] for i in range(len(tops)) if m >> i & 1] for m in masks]
    else:
        chosen = [[pt] for pt in tops]
    for card in info.distinct:
        for group in chosen:
            if draft_kind(card, [c for _, c in group]) >= 0:
                mask = 0
                for p, _ in group:
                    mask |= 1 << p
                acts.append(pack(DRAFT, card, NO_CARD, 0, mask))


def _action_cards(s: State, t: Table, seat: int, hand: Hand, acts: list[int]) -> None:
    """RULES #30-31: Swap (both own a set) and Move (the target owns two or more)."""
    stacks = s.stacks
    if t.swap and hand.counts[SWAP_CARD] and stacks[seat]:
        need = 1 if t.swap_bottom else 2  # RULES 2.8.7
        acts.extend(
            pack(SWAP, NO_CARD, NO_CARD, target)
            for target in range(t.seats)
            if target != seat and len(stacks[target]) >= need
        )
    if t.move and hand.counts[MOVE_CARD]:
        for target in range(t.seats):
            if len(stacks[target]) >= 2:
                acts.append(pack(MOVE, NO_CARD, NO_CARD, target, 0))
                acts.append(pack(MOVE, NO_CARD, NO_CARD, target, 1))


def _responses(s: State) -> tuple[int, ...]:
    """RULES #14-17, #27: answers in a challenge, always with a way to give up."""
    ch = s.challenge
    assert ch is not None
    acts = response_plays(s.table, s.hands[s.to_act], ch.kind, ch.demand)
    acts.append(PASS_ACTION if s.kind == DRAFT_CHALLENGE else CONCEDE_ACTION)
    return tuple(acts)


def response_plays(t: Table, hand: Hand, kind: int, demand: int) -> list[int]:
    """The card plays that meet ``demand`` against a set of ``kind`` (RULES #14, #27)."""
    info = hand
    if demand == 1:
        acts = [_PLAY | kind << 16] if hand.counts[kind] else []
        acts.extend([_PLAY | w << 16 for w in info.wilds])
        return acts
    acts = [pack(PLAY, PENNY_JAR)] if PENNY_JAR in info.distinct else []
    acts.extend(pack(PLAY, a, b) for a, b in card_pairs(info, weight_one(t, kind)))
    return acts
