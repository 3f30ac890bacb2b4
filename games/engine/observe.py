"""What one seat may know: ``observe(state, seat)`` builds it, and nothing else leaks.

What is hidden from a seat is decided in ``hidden`` (other hands, the deck order and the
seed, pile cards below or at face-down tops, tucked cards it has never seen: RULES #9,
2.8.5, 2.8.11), which the strategies' ``view.SeatView`` asks too. Everything in the
result is JSON-ready; treat it as read-only.
"""

from __future__ import annotations

from typing import Any

from .actions import to_json
from .hidden import face_down, sees_tucked
from .legal import legal_actions
from .scoring import ranking
from .state import DECISION_NAMES, DEPTH_NAMES, DRAFTED, AssetSet, Pile, State
from .table import Table


def decision_object(
    s: State, *, game: int, deadline: Any, time_bank_ms: int | None
) -> dict[str, Any]:
    """The decision object for the seat to act (docs/bot-protocol.md): one contract for
    humans, API clients, webhook bots and the SDK's local runner. ``deadline`` is passed
    through as it is (a datetime on the platform, ISO text in the SDK)."""
    seat = s.to_act
    edition = s.table.rules.edition
    return {
        "decision_id": f"{game}:{s.version}",
        "game": game,
        "seat": seat,
        "kind": DECISION_NAMES[s.kind],
        "version": s.version,
        "legal_actions": [to_json(a, edition) for a in legal_actions(s)],
        "deadline": deadline,
        "time_bank_ms": time_bank_ms,
        "observation": observe(s, seat),
    }


def observe(s: State, seat: int | None) -> dict[str, Any]:
    """The seat's view of the game (``None``: a spectator's), with no hidden information."""
    t = s.table
    keys = t.keys
    g = s.game
    down = face_down(s)
    return {
        "seat": seat,
        "seats": t.seats,
        "edition": t.rules.edition,
        "version": s.version,
        "round": g.round,
        "dealer": g.dealer,
        "turn": s.turn,
        "action_number": s.action_no,
        "decision": None if s.over else {"seat": s.to_act, "kind": DECISION_NAMES[s.kind]},
        "hand": [] if seat is None else list(map(keys.__getitem__, s.hands[seat].cards)),
        "hand_counts": [h.size for h in s.hands],
        "deck_count": len(s.deck) - s.drawn,
        "discard": _discard(s.discard, keys),
        "removed": list(map(keys.__getitem__, s.removed)),
        "draft_piles": [
            {"count": len(p), "top": keys[p[-1]] if p and i not in down else None}
            for i, p in enumerate(s.piles)
        ],
        "stacks": [_stack(s, owner, seat) for owner in range(t.seats)],
        "challenge": _challenge(s),
        "bans": [list(b) for b in s.bans],
        "tallies": list(g.tallies),
        "round_wins": list(g.wins),
        "round_scores": [list(r) for r in g.scores],
        "resigned": [i for i in range(t.seats) if g.resigned >> i & 1],
        "over": s.over,
        "winners": list(g.winners),
        "ranking": ranking(t, g.tallies, g.wins, g.winners, g.resigned) if s.over else None,
        "history": list(s.history),  # this round's public events
    }


def _discard(pile: Pile, keys: tuple[str, ...]) -> list[str]:
    """The discard pile's card keys, bottom first (walks the cons list once)."""
    out = []
    while pile is not None:
        out.append(keys[pile[0]])
        pile = pile[1]
    out.reverse()
    return out


def _stack(s: State, owner: int, seat: int | None) -> list[dict[str, Any]]:
    t = s.table
    first_formed = t.first_formed
    out = []
    for i, aset in enumerate(s.stacks[owner]):
        view = _VIEWS.get(id(aset))
        if view is None or view[0] is not aset or view[1] is not t:
            view = _set_view(aset, t)
        # RULES #9, 2.8.11: a tucked card shows only to the owner and seats that saw it
        kind, count, cards, known = view[2] if sees_tucked(aset, owner, seat) else view[3]
        out.append(
            {
                "kind": kind,
                "count": count,
                "cards": list(cards),
                "known_value": known,
                "protected": aset.first if first_formed else i == 0,  # RULES #11, #12
            }
        )
    return out


SetView = tuple[str, int, tuple[str | None, ...], int]  # kind, count, cards, known value

# Each set's view under a rule table, by the set's identity (kept alive, so its id is not
# reused while cached): a set outlives many decisions unchanged, and observe runs at each.
_VIEWS: dict[int, tuple[AssetSet, Table, SetView, SetView]] = {}
_VIEWS_MAX = 4096


def _set_view(aset: AssetSet, t: Table) -> tuple[AssetSet, Table, SetView, SetView]:
    """A set's view to seats that know its tucked card, and to those that do not."""
    keys, values = t.keys, t.values
    kind, cards, tucked, _, _ = aset
    shown: tuple[str | None, ...] = tuple([keys[c] for c in cards])
    known = sum([values[c] for c in cards])
    seen: SetView = (keys[kind], len(cards), shown, known)
    unseen = seen
    if tucked >= 0:
        hidden = (*shown[:tucked], None, *shown[tucked + 1 :])
        unseen = (keys[kind], len(cards), hidden, known - values[cards[tucked]])
    if len(_VIEWS) >= _VIEWS_MAX:
        _VIEWS.clear()
    view = _VIEWS[id(aset)] = (aset, t, seen, unseen)
    return view


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
