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

from .errors import GameOver
from .flow import shuffled_any
from .hands import hand_of
from .hidden import face_down
from .state import State
from .worlds import Worlds


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
    pool = shuffled_any([*pool, *s.deck], rng)
    hands = []
    at = 0
    for hand in s.hands:
        hands.append(hand_of(pool[at : at + hand.size]))
        at += hand.size
    s.hands, s.deck = tuple(hands), tuple(pool[at:])
    down = face_down(s)
    s.piles = tuple(
        tuple(shuffled_any(pile, rng)) if p in down else (*shuffled_any(pile[:-1], rng), *pile[-1:])
        for p, pile in enumerate(s.piles)
    )


def redeal_hidden_from(state: State, seat: int, seed: int) -> State:
    """The same position with everything hidden from ``seat`` dealt again from ``seed``.

    Unlike ``fork(redeal=True)`` this keeps ``seat``'s own hand and everything it has
    seen, so it is a sample of the positions ``seat`` cannot tell apart: one world of
    ``worlds.Worlds`` (its docstring says what is dealt again, and how), and what the
    never-peek tests compare a strategy's choice over. Re-dealing a re-dealt state gives
    the same result: a world depends only on what ``seat`` knows and on ``seed``.
    """
    return Worlds(state, seat).sample(seed)
