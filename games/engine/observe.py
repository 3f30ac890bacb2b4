"""What one seat may know: ``observe(state, seat)`` builds it, and nothing else leaks.

Hidden from a seat: other hands (only their sizes show), the deck order and the seed,
pile cards below the face-up tops, and a tucked card it has never seen (RULES #9,
2.8.11). Everything in the result is JSON-ready; treat it as read-only.
"""

from __future__ import annotations

from typing import Any

from .legal import is_protected
from .scoring import ranking
from .state import DECISION_NAMES, DEPTH_NAMES, DRAFTED, State


def observe(s: State, seat: int | None) -> dict[str, Any]:
    """The seat's view of the game (``None``: a spectator's), with no hidden information."""
    t = s.table
    keys = t.keys
    down = _face_down(s)
    return {
        "seat": seat,
        "seats": t.seats,
        "edition": t.rules.edition,
        "version": s.version,
        "round": s.round,
        "dealer": s.dealer,
        "turn": s.turn,
        "action_number": s.action_no,
        "decision": None if s.over else {"seat": s.to_act, "kind": DECISION_NAMES[s.kind]},
        "hand": [] if seat is None else [keys[c] for c in s.hands[seat].cards],
        "hand_counts": [h.size for h in s.hands],
        "deck_count": len(s.deck) - s.drawn,
        "discard": [keys[c] for c in s.discard_pile],
        "removed": [keys[c] for c in s.removed],
        "draft_piles": [
            {"count": len(p), "top": keys[p[-1]] if p and i not in down else None}
            for i, p in enumerate(s.piles)
        ],
        "stacks": [_stack(s, owner, seat) for owner in range(t.seats)],
        "challenge": _challenge(s),
        "bans": [list(b) for b in s.bans],
        "tallies": list(s.tallies),
        "round_wins": list(s.wins),
        "round_scores": [list(r) for r in s.scores],
        "resigned": [i for i in range(t.seats) if s.resigned >> i & 1],
        "over": s.over,
        "winners": list(s.winners),
        "ranking": ranking(t, s.tallies, s.wins, s.winners, s.resigned) if s.over else None,
        "history": list(s.history),  # this round's public events
    }


def _face_down(s: State) -> tuple[int, ...]:
    """Draft piles whose top is face down: used by a draft, not flipped yet (RULES 2.8.5)."""
    ch = s.challenge
    return s.flips + ch.piles if ch is not None else s.flips


def _stack(s: State, owner: int, seat: int | None) -> list[dict[str, Any]]:
    t = s.table
    keys, values = t.keys, t.values
    bit = 0 if seat is None else 1 << seat  # a spectator has seen no tucked card
    stack = s.stacks[owner]
    out = []
    for i, st in enumerate(stack):
        hidden = st.tucked if st.tucked >= 0 and owner != seat and not st.knowers & bit else -1
        cards = [None if j == hidden else keys[c] for j, c in enumerate(st.cards)]
        out.append(
            {
                "kind": keys[st.kind],
                "count": len(st.cards),
                "cards": cards,
                "known_value": sum(values[c] for j, c in enumerate(st.cards) if j != hidden),
                "protected": is_protected(stack, i, t.first_formed),
            }
        )
    return out


def _challenge(s: State) -> dict[str, Any] | None:
    ch = s.challenge
    if ch is None:
        return None
    keys = s.table.keys
    return {
        "challenger": ch.challenger,
        "holder": ch.holder,
        "depth": DEPTH_NAMES[ch.depth],
        "kind": keys[ch.kind],
        "played": [keys[c] for c in ch.played],
        "last": ch.last,
        "responder": ch.responder,
        "demand": ch.demand,
        "drafted": [keys[c] for c in ch.drafted.cards]
        if ch.depth == DRAFTED and ch.drafted
        else None,
    }
