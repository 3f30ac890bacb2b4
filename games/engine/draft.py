"""Draft piles for 2 and 3 seats: set-up, and flipping used piles (RULES #34-37, 2.8.5-6)."""

from __future__ import annotations

from random import Random
from typing import Any

from .cards import MOVE, SWAP
from .events import Event
from .hands import replace_at
from .legal import draft_opponent
from .state import MOVE_CHOICE, State, seen_by, set_stack


def settle_pile(pile: list[int], rng: Random) -> None:
    """RULES #36, 2.8.6: a face-up action card goes to a random place below the top."""
    while pile and pile[-1] >= SWAP and any(c < SWAP for c in pile):
        card = pile.pop()
        pile.insert(int(rng.random() * len(pile)), card)


def swap_tops(s: State, a: int, b: int) -> None:
    """Exchange the top sets of two stacks; each new owner sees its new set."""
    stacks = s.stacks
    sa, sb = stacks[a], stacks[b]
    top_a, top_b = sa[-1], sb[-1]
    new_a = sa[:-1] + (seen_by(top_b, a),)
    new_b = sb[:-1] + (seen_by(top_a, b),)
    set_stack(s, a, new_a)
    set_stack(s, b, new_b)


def move_set(s: State, target: int, direction: int) -> None:
    """RULES #31: top set to the bottom (0) or bottom set to the top (1)."""
    stack = s.stacks[target]
    moved = (stack[-1],) + stack[:-1] if direction == 0 else stack[1:] + (stack[0],)
    set_stack(s, target, moved)


def process_flips(s: State, ev: list[dict[str, Any]]) -> bool:
    """Flip the used piles in ascending order, resolving revealed action cards.

    Returns True when a Move revealed in a pile needs a choice first (RULES 2.8.5).
    """
    keys = s.table.keys
    while True:
        if s.moves and _ask_move(s):
            return True
        if not s.flips:
            return False
        p = s.flips[0]
        pile = s.piles[p]
        if not pile or pile[-1] < SWAP:
            s.flips = s.flips[1:]
            if pile:
                ev.append(Event({"type": "reveal", "pile": p, "card": keys[pile[-1]]}))
            continue
        a, b = s.turn, draft_opponent(s.table, s.turn, p)
        card = pile[-1]
        if card == MOVE:
            _take_top(s, p, card)
            ev.append(
                Event(
                    {
                        "type": "pile_action",
                        "pile": p,
                        "card": keys[card],
                        "effect": "move",
                        "seats": [a, b],
                    }
                )
            )
            s.moves = ((a, b), (b, a))  # the drafter chooses for the other player first
        elif s.stacks[a] and s.stacks[b]:
            _take_top(s, p, card)
            swap_tops(s, a, b)
            ev.append(
                Event(
                    {
                        "type": "pile_action",
                        "pile": p,
                        "card": keys[card],
                        "effect": "swap",
                        "seats": [a, b],
                    }
                )
            )
        else:
            _return_swap(s, p, ev)


def _take_top(s: State, p: int, card: int) -> None:
    s.piles = replace_at(s.piles, p, s.piles[p][:-1])
    s.removed = s.removed + (card,)  # RULES #32: action cards leave play once used


def _return_swap(s: State, p: int, ev: list[dict[str, Any]]) -> None:
    """RULES 2.8.5: no set to swap, so the Swap goes back below the top (or out of play)."""
    rest = s.piles[p][:-1]
    key = s.table.keys[SWAP]
    if all(c == SWAP for c in rest):
        _take_top(s, p, SWAP)
        ev.append(
            Event({"type": "pile_action", "pile": p, "card": key, "effect": "removed", "seats": []})
        )
        return
    rng = Random(f"{s.game.seed}:{s.game.round}:{s.version}:{p}:{len(ev)}")
    i = int(rng.random() * len(rest))
    s.piles = replace_at(s.piles, p, rest[:i] + (SWAP,) + rest[i:])
    ev.append(
        Event({"type": "pile_action", "pile": p, "card": key, "effect": "returned", "seats": []})
    )


def _ask_move(s: State) -> bool:
    while s.moves:
        chooser, target = s.moves[0]
        if len(s.stacks[target]) >= 2:
            s.to_act = chooser
            s.kind = MOVE_CHOICE
            return True
        s.moves = s.moves[1:]  # RULES 2.8.5: a target with fewer than 2 sets is skipped
    return False
