"""Re-dealing what a seat cannot see, and what a seat's view holds: the leak tests' tools
(tests/engine/test_observe_leaks.py, tests/engine/test_view.py,
tests/bots/test_never_peek.py). A plain module, not a test module: importing a test module
from another would build its hypothesis tests before the profile in tests/conftest.py."""

from __future__ import annotations

from random import Random
from typing import Any

from games.engine import SeatView, State, state_from_json, state_to_json
from games.engine.cards import KINDS, PENNY_JAR, SILVER
from games.engine.state import DRAFTED
from tests.engine.strategies import rule_sets

# RULES #17: under auto_yield="no_legal_card" prompts deliberately depend on hands, so the
# invariance is stated for the default, which asks whoever holds a card.
leak_rules = rule_sets(auto_yield="empty_hand_only")


def face_down_piles(data: dict[str, Any]) -> set[int]:
    """Draft piles whose top is face down: used by a draft not yet flipped (RULES 2.8.5)."""
    down = set(data["flips"])
    ch = data["challenge"]
    if ch is not None and ch[2] == DRAFTED:
        down |= set(ch[9])
    return down


def redeal_hidden(state: State, seat: int | None, rng: Random) -> State:
    """The state with the cards hidden from ``seat`` (None: a spectator) shuffled.

    Every count stays, and so does everything ``seat`` may know. A tucked card only
    trades places with a card it could be, an asset of its set's kind or a wild (RULES
    #7, #9), so the re-dealt position is one the seat cannot tell from the real one.
    """
    data = state_to_json(state)
    bit = 0 if seat is None else 1 << seat  # a spectator has seen no tucked card
    free: list[tuple[list[int], int]] = []  # hidden places any card may take
    deck = data["deck"]
    free += [(deck, i) for i in range(data["drawn"], len(deck))]
    for other, hand in enumerate(data["hands"]):
        if other != seat:
            free += [(hand, i) for i in range(len(hand))]
    down = face_down_piles(data)
    for p, pile in enumerate(data["piles"]):
        free += [(pile, i) for i in range(len(pile) if p in down else len(pile) - 1)]
    cards = [where[i] for where, i in free]
    rng.shuffle(cards)
    for (where, i), card in zip(free, cards, strict=True):
        where[i] = card
    tucked = [  # a tucked place, and the kind of the set its card must fit
        (aset[1], aset[2], aset[0])
        for owner, stack in enumerate(data["stacks"])
        if owner != seat
        for aset in stack
        if aset[2] >= 0 and not aset[3] & bit
    ]
    places: list[tuple[list[int], int, int | None]] = [(w, i, None) for w, i in free]
    places += tucked
    for where, i, kind in rng.sample(tucked, len(tucked)):
        swaps = [
            (w, j)
            for w, j, other_kind in places
            if _fits(w[j], kind) and (other_kind is None or _fits(where[i], other_kind))
        ]
        w, j = rng.choice(swaps)  # never empty: the place itself fits
        where[i], w[j] = w[j], where[i]
    return state_from_json(data)


def _fits(card: int, kind: int) -> bool:
    return card == kind or SILVER <= card <= PENNY_JAR


def knowledge(view: SeatView) -> tuple[Any, ...]:
    """Everything a SeatView tells its strategy, as one comparable value."""
    seats = range(view.seats)
    return (
        view.seat,
        view.kind,
        view.to_act,
        view.legal(),
        view.hand,
        [view.holds(card) for card in range(KINDS)],
        [view.hand_size(seat) for seat in seats],
        view.deck_left,
        view.discard_top,
        view.discard_pile,
        view.removed,
        [view.stack(seat) for seat in seats],
        [[view.protected(seat, i) for i in range(view.stack_size(seat))] for seat in seats],
        view.pile_tops(),
        view.challenge,
        view.contested_value(),
        view.tallies,
        view.values,
        view.unseen(),
    )
