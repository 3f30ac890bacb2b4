"""Forking a position: a new game that starts where another one stands.

``fork(state, seed)`` is the position as a new game at version 0: everything on the
table and every seat's knowledge as they were, resignations forgotten (every seat of
the new game is played), and every later round dealt from ``seed`` (RULES #1-4 through
``flow.deal``). With ``redeal=True`` the cards no seat has seen are dealt again from
``seed`` first, so the position can be played out with other luck:

- the undrawn deck and every hand go into one pool, shuffled, and dealt back into hands
  of the sizes they had (seat 0 first) and a deck of the size it had. No card in a hand
  has ever been seen by another seat (hands fill only from the deck, RULES #1, #18, and
  a card leaving a hand is public: challenges, discards, drafts, RULES 2.8.11), so each
  seat loses only what it knew of its own hand;
- each draft pile's cards below its face-up top (and a face-down top, RULES 2.8.5) are
  shuffled within that pile. They stay in their pile because a seat may know a pile
  holds a card: a Swap a flip returned below the top (RULES #36, 2.8.5) is known to be
  there;
- everything else stays: the discard pile, removed cards, every set (tucked cards too:
  their owner and any seat that held the set know them, RULES #9, 2.8.11), face-up pile
  tops, a challenge in progress, the public history.

So the card multiset, every public fact and every seat's knowledge of others' cards
are those of ``state``. Under ``auto_yield="no_legal_card"`` (RULES #17) a re-dealt
responder may hold no legal answer to a challenge it is already asked about: its only
legal action is then to concede (or pass on a drafted set), as under the default rule.
"""

from __future__ import annotations

from random import Random

from .cards import PENNY_JAR, SILVER
from .errors import GameOver
from .flow import shuffled
from .hands import hand_of
from .state import State


def fork(state: State, seed: int, *, redeal: bool = False) -> State:
    """A new game at ``state``'s position (version 0), later rounds dealt from ``seed``."""
    if state.over:
        raise GameOver("the game is over: there is no position to play from")
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError("seed must be an integer from 0 to 2**63 - 1")
    s = state._copy()
    s.version = 0
    s.game = state.game._replace(seed=seed, resigned=0)
    s.deck, s.drawn = state.deck_left, 0
    s.log = (state.history, None)
    if redeal:
        _redeal(s, Random(f"{seed}:fork"))
    return s


def _redeal(s: State, rng: Random) -> None:
    """Deal the deck and the hands again from one pool; shuffle each pile's hidden cards."""
    pool = [c for hand in s.hands for c in hand.cards]
    pool = _shuffled([*pool, *s.deck], rng)
    hands = []
    at = 0
    for hand in s.hands:
        hands.append(hand_of(pool[at : at + hand.size]))
        at += hand.size
    s.hands, s.deck = tuple(hands), tuple(pool[at:])
    ch = s.challenge
    down = s.flips + ch.piles if ch is not None else s.flips  # as observe: tops not shown
    s.piles = tuple(
        tuple(_shuffled(pile, rng)) if p in down else (*_shuffled(pile[:-1], rng), *pile[-1:])
        for p, pile in enumerate(s.piles)
    )


def _shuffled(cards: list[int] | tuple[int, ...], rng: Random) -> list[int]:
    """``flow.shuffled`` for any number of cards (it needs two or more)."""
    return list(cards) if len(cards) < 2 else shuffled(tuple(cards), rng)


def redeal_hidden_from(state: State, seat: int, seed: int) -> State:
    """The same position with everything hidden from ``seat`` dealt again from ``seed``.

    Unlike ``fork(redeal=True)`` this keeps ``seat``'s own hand and everything it has
    seen, so it is a sample of the positions ``seat`` cannot tell apart: what a search
    player may imagine, and what the never-peek tests compare a strategy's choice over.
    Dealt again, as one pool: the other seats' hands (sizes kept), the undrawn deck (its
    size kept), every draft-pile card under a face-up top and every face-down top (RULES
    2.8.5; pile sizes kept), and each tucked card ``seat`` has never seen (RULES #9,
    2.8.11), which gets a card it could be: an asset of its set's kind or a wild. Pile
    cards join the pool, unlike ``fork``'s: a seat may know a Swap a flip returned under
    a top is in that pile (RULES #36), but the pile's other hidden cards it cannot tell
    from the deck's, and keeping each pile's own cards would read them. Later rounds are
    dealt from ``seed`` too (the game's seed is hidden as well), and the version, history
    and resignations stay: the result is a position in the same game, not a new one.

    The pool is sorted before it is shuffled, so the result depends only on what
    ``seat`` knows and on ``seed``: re-dealing a re-dealt state gives the same result.
    """
    if state.over:
        raise GameOver("the game is over: there is nothing hidden to deal")
    if not 0 <= seat < state.table.seats:
        raise ValueError("seat must be one of the game's seats")
    rng = Random(f"{seed}:redeal:{seat}")
    s = state._copy()
    s.version = state.version
    s.game = state.game._replace(seed=seed)
    bit = 1 << seat
    slots = [
        (owner, i, aset[1][aset[2]])
        for owner, stack in enumerate(state.stacks)
        if owner != seat
        for i, aset in enumerate(stack)
        if aset[2] >= 0 and not aset[3] & bit
    ]
    others = [c for k, hand in enumerate(state.hands) if k != seat for c in hand.cards]
    ch = state.challenge
    down = state.flips + ch.piles if ch is not None else state.flips  # tops not shown
    hidden = [
        len(pile) if p in down else max(0, len(pile) - 1) for p, pile in enumerate(state.piles)
    ]
    below = [c for p, pile in enumerate(state.piles) for c in pile[: hidden[p]]]
    tucked = [c for _, _, c in slots]
    pool = _shuffled(sorted([*others, *state.deck_left, *below, *tucked]), rng)
    if slots:
        _retuck(s, slots, pool, rng)
    hands = []
    at = 0
    for k, hand in enumerate(state.hands):
        if k == seat:
            hands.append(hand)
            continue
        hands.append(hand_of(pool[at : at + hand.size]))
        at += hand.size
    piles = []
    for p, pile in enumerate(state.piles):
        piles.append((*pool[at : at + hidden[p]], *pile[hidden[p] :]))
        at += hidden[p]
    s.hands, s.piles, s.deck, s.drawn = tuple(hands), tuple(piles), tuple(pool[at:]), 0
    return s


def _fits(card: int, kind: int) -> bool:
    """Whether ``card`` can be the tucked card of a set of ``kind`` (its twin or a wild)."""
    return card == kind or SILVER <= card <= PENNY_JAR


def _retuck(s: State, slots: list[tuple[int, int, int]], pool: list[int], rng: Random) -> None:
    """Give each hidden tucked slot a card of ``pool`` that fits it; take those from pool.

    Slots are filled in a shuffled order, each with a random fitting card, unless that
    card would leave the remaining slots without enough fitting cards (each slot needs
    its kind or a wild, so the rest stay fillable while the wilds cover every kind's
    shortfall). The true cards fit, so some choice always keeps the rest fillable.
    """
    kinds = [s.stacks[owner][i][0] for owner, i, _ in slots]
    order = _shuffled(list(range(len(slots))), rng)
    chosen: dict[int, int] = {}
    for n, slot in enumerate(order):
        kind = kinds[slot]
        rest = [kinds[o] for o in order[n + 1 :]]
        fitting = [j for j, c in enumerate(pool) if _fits(c, kind)]
        start = int(rng.random() * len(fitting))
        for j in fitting[start:] + fitting[:start]:
            left = pool[:j] + pool[j + 1 :]
            if _fillable(rest, left):
                chosen[slot] = pool.pop(j)
                break
        else:  # pragma: no cover - the true cards always fit (the docstring's argument)
            raise AssertionError("no consistent tucked card")
    stacks = [list(stack) for stack in s.stacks]
    for slot, (owner, i, _) in enumerate(slots):
        aset = stacks[owner][i]
        cards = list(aset[1])
        cards[aset[2]] = chosen[slot]
        stacks[owner][i] = aset._replace(cards=tuple(cards))
    s.stacks = tuple(tuple(stack) for stack in stacks)


def _fillable(kinds: list[int], pool: list[int]) -> bool:
    """Whether each slot of ``kinds`` can get its own kind or a wild from ``pool``."""
    wilds = sum(1 for c in pool if SILVER <= c <= PENNY_JAR)
    short = 0
    for kind in set(kinds):
        short += max(0, kinds.count(kind) - pool.count(kind))
    return short <= wilds
