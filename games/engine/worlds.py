"""Worlds: the positions one seat cannot tell from the real one, dealt from a seed.

``Worlds(state, seat)`` keeps only what ``seat`` may know: a copy of the state with every
card hidden from the seat taken out (``hidden``: the other hands, the deck, pile cards
under or at a face-down top, the tucked cards it never saw; the seed too), and the cards
it has not seen, counted from the deck's make-up less everything it has seen. ``sample``
deals those cards back into the empty places. So a world depends on nothing the seat
cannot see, by construction: the search player samples its determinizations here, and
``redeal_hidden_from`` is one sample.

Dealt as one pool, sorted and then shuffled: the other seats' hands (sizes kept), the
undrawn deck (its size kept), the hidden part of each draft pile (pile sizes kept), and
each tucked card ``seat`` has never seen (RULES #9, 2.8.11), which gets a card it could be:
an asset of its set's kind or a wild. Pile cards join the pool: a seat may know a Swap a
flip returned under a top is in that pile (RULES #36), but the pile's other hidden cards it
cannot tell from the deck's. Later rounds are dealt from the sample's seed too (the game's
seed is hidden as well), and the version, history and resignations stay: a world is a
position in the same game, not a new one.
"""

from __future__ import annotations

from random import Random

from .cards import ASSETS, GOLD, KINDS, PENNY_JAR, SILVER
from .errors import GameOver
from .flow import shuffled_any
from .hands import EMPTY, hand_of
from .hidden import face_down, hidden_in_pile, sees_tucked
from .state import DRAFTED, HIDDEN, AssetSet, Progress, State, asset_set


class Worlds:
    """A sampler of the positions ``seat`` cannot tell apart; it holds no hidden card."""

    __slots__ = ("_public", "_pool", "_sizes", "_below", "_slots", "_seat")

    def __init__(self, state: State, seat: int) -> None:
        if state.over:
            raise GameOver("the game is over: there is nothing hidden to deal")
        if not 0 <= seat < state.table.seats:
            raise ValueError("seat must be one of the game's seats")
        self._seat = seat
        down = face_down(state)
        below = tuple(hidden_in_pile(state, down, p) for p in range(len(state.piles)))
        slots: list[tuple[int, int, int]] = []  # (owner, index, kind) of each unseen tuck
        stacks = []
        for owner, stack in enumerate(state.stacks):
            kept = list(stack)
            for i, aset in enumerate(stack):
                if not sees_tucked(aset, owner, seat):
                    slots.append((owner, i, aset[0]))
                    kept[i] = _emptied(aset)
            stacks.append(tuple(kept))
        s = state._copy()
        s.version = state.version
        s.game = state.game._replace(seed=0)
        s.hands = tuple(h if k == seat else EMPTY for k, h in enumerate(state.hands))
        s.deck, s.drawn = (), 0
        s.piles = tuple(pile[below[p] :] for p, pile in enumerate(state.piles))
        s.stacks = tuple(stacks)
        self._public = s
        self._sizes = tuple(h.size for h in state.hands)
        self._below = below
        self._slots = tuple(slots)
        self._pool = _unseen(s, seat)
        # the pool is exactly what was taken out: a place for every card, and no more
        places = sum(self._sizes) - self._sizes[seat] + len(state.deck) - state.drawn
        if len(self._pool) != places + sum(below) + len(slots):  # pragma: no cover
            raise AssertionError("the unseen cards do not fill the hidden places")

    def sample(self, seed: int) -> State:
        """One world, dealt from ``seed``: the same seed always deals the same world."""
        seat = self._seat
        rng = Random(f"{seed}:redeal:{seat}")
        public = self._public
        s = public._copy()
        s.version = public.version
        g = public.game  # Progress(...), not _replace: a sample is the search's hot path
        s.game = Progress(
            seed, g.round, g.dealer, g.tallies, g.wins, g.scores, g.resigned, g.winners
        )
        pool = shuffled_any(self._pool, rng)
        if self._slots:
            _retuck(s, self._slots, pool, rng)
        hands = []
        at = 0
        for k, size in enumerate(self._sizes):
            if k == seat:
                hands.append(public.hands[k])
                continue
            hands.append(hand_of(pool[at : at + size]))
            at += size
        piles = []
        for p, pile in enumerate(public.piles):
            n = self._below[p]
            piles.append((*pool[at : at + n], *pile))
            at += n
        s.hands, s.piles, s.deck, s.drawn = tuple(hands), tuple(piles), tuple(pool[at:]), 0
        return s


def _emptied(aset: AssetSet) -> AssetSet:
    """The set with its tucked card taken out (its place stays, for the sample to fill)."""
    cards = list(aset[1])
    cards[aset[2]] = HIDDEN
    return aset._replace(cards=tuple(cards))


def _unseen(s: State, seat: int) -> list[int]:
    """The cards of the game's deck that are nowhere in the emptied state: the pool to
    deal, ascending (so a sample depends on the seed alone, never on an order)."""
    left = [0] * KINDS
    for card in s.table.deck:
        left[card] += 1
    seen = [*s.hands[seat].cards, *s.discard_pile, *s.removed]
    for stack in s.stacks:
        for aset in stack:
            seen += [c for c in aset[1] if c != HIDDEN]
    for pile in s.piles:
        seen += pile
    ch = s.challenge
    if ch is not None:
        seen += ch.played
        if ch.depth == DRAFTED and ch.drafted is not None:
            seen += ch.drafted[1]
    for card in seen:
        left[card] -= 1
    return [card for card in range(KINDS) for _ in range(left[card])]


def _retuck(
    s: State, slots: tuple[tuple[int, int, int], ...], pool: list[int], rng: Random
) -> None:
    """Give each hidden tucked slot a card of ``pool`` that fits it; take those from pool.

    Slots are filled in a shuffled order, each with a random fitting card (an asset of its
    set's kind or a wild, RULES #7, #9), unless that card would leave the remaining slots
    without enough fitting cards (the rest stay fillable while the wilds cover every
    kind's shortfall). The true cards fit, so some choice always keeps the rest fillable.
    """
    kinds = [kind for _, _, kind in slots]
    order = shuffled_any(list(range(len(slots))), rng)
    counts = [0] * KINDS  # the pool's cards by kind
    for card in pool:
        counts[card] += 1
    need = [0] * KINDS  # the slots still to fill, by kind
    for kind in kinds:
        need[kind] += 1
    chosen: dict[int, int] = {}
    for slot in order:
        kind = kinds[slot]
        need[kind] -= 1
        fitting = [j for j, c in enumerate(pool) if c == kind or SILVER <= c <= PENNY_JAR]
        start = int(rng.random() * len(fitting))
        for j in fitting[start:] + fitting[:start]:
            card = pool[j]
            counts[card] -= 1
            if _fillable(need, counts):
                chosen[slot] = pool.pop(j)
                break
            counts[card] += 1
        else:  # pragma: no cover - the true cards always fit (the docstring's argument)
            raise AssertionError("no consistent tucked card")
    stacks = list(s.stacks)
    changed = {owner: list(s.stacks[owner]) for owner, _, _ in slots}
    for slot, (owner, i, _) in enumerate(slots):
        aset = changed[owner][i]
        cards = list(aset[1])
        cards[aset[2]] = chosen[slot]
        changed[owner][i] = asset_set(aset[0], tuple(cards), aset[2], aset[3], aset[4])
    for owner, stack in changed.items():  # the other stacks stay the very same objects
        stacks[owner] = tuple(stack)
    s.stacks = tuple(stacks)


def _fillable(need: list[int], counts: list[int]) -> bool:
    """Whether every slot still to fill (``need``, by kind) can get its own kind or a wild
    from a pool of ``counts``."""
    short = 0
    for kind in range(ASSETS):
        if need[kind] > counts[kind]:
            short += need[kind] - counts[kind]
    return short <= counts[SILVER] + counts[GOLD] + counts[PENNY_JAR]
