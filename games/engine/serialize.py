"""States to JSON and back, exactly: ``state_from_json(state_to_json(s)) == s``."""

from __future__ import annotations

from typing import Any

from .errors import EngineError
from .hands import hand_of
from .rules import RuleSet
from .state import AssetSet, Challenge, Pile, Progress, State, asset_set
from .table import compile_rules

FORMAT = 1


def state_to_json(s: State) -> dict[str, Any]:
    """Every field of the state as JSON-ready data (includes hidden information)."""
    ch = s.challenge
    return {
        "format": FORMAT,
        "rules": s.rules.to_json(),
        "seed": s.seed,
        "version": s.version,
        "round": s.round,
        "dealer": s.dealer,
        "tallies": list(s.tallies),
        "wins": list(s.wins),
        "scores": [list(r) for r in s.scores],
        "resigned": s.resigned,
        "over": s.over,
        "winners": list(s.winners),
        "deck": list(s.deck),
        "drawn": s.drawn,
        "discard": list(s.discard_pile),
        "removed": list(s.removed),
        "hands": [list(h.cards) for h in s.hands],
        "stacks": [[_set_to_json(st) for st in stack] for stack in s.stacks],
        "piles": [list(p) for p in s.piles],
        "history": list(s.history),
        "turn": s.turn,
        "action_no": s.action_no,
        "to_act": s.to_act,
        "kind": s.kind,
        "challenge": None
        if ch is None
        else [
            ch.challenger,
            ch.holder,
            ch.depth,
            ch.kind,
            list(ch.played),
            ch.last,
            ch.responder,
            ch.demand,
            None if ch.drafted is None else _set_to_json(ch.drafted),
            list(ch.piles),
        ],
        "refill": list(s.refill),
        "bans": [list(b) for b in s.bans],
        "flips": list(s.flips),
        "moves": [list(m) for m in s.moves],
    }


def _pile(cards: list[int]) -> Pile:
    """The discard pile, top first, of cards listed bottom first."""
    # Any: a compiled build (make engine) would check each step against the narrowed
    # types mypy infers for the loop, which are never deep enough
    pile: Any = None
    for card in cards:
        pile = (card, pile)
    return pile  # type: ignore[no-any-return]


def _set_to_json(st: AssetSet) -> list[Any]:
    return [st.kind, list(st.cards), st.tucked, st.knowers, st.first]


def _set_from_json(d: list[Any]) -> AssetSet:
    return asset_set(d[0], tuple(d[1]), d[2], d[3], d[4])


def state_from_json(d: dict[str, Any]) -> State:
    """Rebuild a State from ``state_to_json`` output."""
    if d.get("format") != FORMAT:
        raise EngineError(f"unknown state format {d.get('format')!r}", code="invalid_state")
    s = State()
    rules = RuleSet.from_json(d["rules"])
    s.table = compile_rules(rules)
    s.game = Progress(
        d["seed"],
        d["round"],
        d["dealer"],
        tuple(d["tallies"]),
        tuple(d["wins"]),
        tuple(tuple(r) for r in d["scores"]),
        d["resigned"],
        tuple(d["winners"]),
    )
    for name in ("version", "over", "turn", "action_no", "to_act", "kind"):
        setattr(s, name, d[name])
    for name in ("deck", "removed", "refill", "flips"):
        setattr(s, name, tuple(d[name]))
    s.drawn = d["drawn"]
    s.discard = _pile(d["discard"])
    s.hands = tuple(hand_of(h) for h in d["hands"])
    s.stacks = tuple(tuple(_set_from_json(st) for st in stack) for stack in d["stacks"])
    s.tops = tuple(stack[-1].kind if len(stack) > 1 else -1 for stack in s.stacks)
    s.piles = tuple(tuple(p) for p in d["piles"])
    s.log = (tuple(d["history"]), None)
    s.bans = tuple((a, b) for a, b in d["bans"])
    s.moves = tuple((a, b) for a, b in d["moves"])
    c = d["challenge"]
    s.challenge = (
        None
        if c is None
        else Challenge(
            c[0],
            c[1],
            c[2],
            c[3],
            tuple(c[4]),
            c[5],
            c[6],
            c[7],
            None if c[8] is None else _set_from_json(c[8]),
            tuple(c[9]),
        )
    )
    s._legal = None
    return s
