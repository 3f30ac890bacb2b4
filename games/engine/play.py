"""The engine's entry points: new_game, legal_actions, apply, resign, replay.

``apply(state, action)`` validates against ``legal_actions`` and returns a new State
plus the public events the action caused; the given state is never changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from . import actions as act
from .diagnose import diagnose
from .errors import GameOver, IllegalAction, NotYourTurn
from .events import Event
from .flow import Events, deal, finish
from .handlers import handle
from .legal import legal_actions
from .rules import RuleSet
from .state import (
    DECISION_NAMES,
    DRAFT_CHALLENGE,
    MOVE_CHOICE,
    NEW_ROUND,
    SECOND_ACTION,
    TURN,
    State,
    blank_state,
)


class Decision(NamedTuple):
    """Who must act now, and what kind of decision it is."""

    seat: int
    kind: str
    version: int


def new_game(rules: RuleSet, seed: object) -> State:
    """A new game, its first round dealt from ``seed``, an int from 0 to 2**63 - 1.

    ``seed`` is typed ``object`` so that both builds refuse anything else, a bool too, with
    the same ValueError (compiled, a parameter typed int would take a bool as an int).
    """
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError("seed must be an integer from 0 to 2**63 - 1")
    s = blank_state(rules, seed)
    ev: Events = []
    deal(s, ev)
    s.log = (tuple(ev), None)
    return s


def decision(state: State) -> Decision | None:
    """The pending decision, or None once the game is over."""
    if state.over:
        return None
    return Decision(state.to_act, DECISION_NAMES[state.kind], state.version)


def apply(
    state: State, action: object, seat: int | None = None
) -> tuple[State, tuple[dict[str, Any], ...]]:
    """Apply one action for the seat that must act; raise IllegalAction if it may not.

    ``action`` is one of ``legal_actions(state)``, an int; it is typed ``object`` because
    anything else is refused as malformed (by both builds: a compiled parameter typed int
    would raise TypeError first), and so that the compiled engine looks the caller's own
    int up in the legal list instead of a copy it boxed.
    """
    if seat is not None and seat != state.to_act and not state.over:
        raise NotYourTurn(f"seat {state.to_act} must act now, not seat {seat}")
    legal = state._legal
    if legal is None:
        legal = legal_actions(state)
    # once the game is over nothing is legal; a bool or float may equal a listed int
    if action not in legal or type(action) is not int:
        raise GameOver("the game is over") if state.over else diagnose(state, action)
    s = State()  # state._copy(), inlined: it is a fifth of a classic decision's work
    s.table = state.table
    s.game = state.game
    s.over = state.over
    s.version = state.version + 1
    s.deck = state.deck
    s.drawn = state.drawn
    s.discard = state.discard
    s.removed = state.removed
    s.hands = state.hands
    s.stacks = state.stacks
    s.tops = state.tops
    s.piles = state.piles
    s.log = state.log
    s.turn = state.turn
    s.action_no = state.action_no
    s.to_act = state.to_act
    s.kind = state.kind
    s.challenge = state.challenge
    s.refill = state.refill
    s.bans = state.bans
    s.flips = state.flips
    s.moves = state.moves
    s._legal = None
    ev: Events = []
    handle(s, action, ev)
    if s.log is NEW_ROUND or s.game.resigned:
        return _commit(state, s, ev)
    events = tuple(ev)  # _commit's common case, inlined for the hot path
    s.log = (events, state.log)
    return s, events


def resign(state: State, seat: int) -> tuple[State, tuple[dict[str, Any], ...]]:
    """A seat leaves: the engine plays its default actions and ranks it last."""
    if state.over:
        raise GameOver("the game is over")
    if type(seat) is not int or not 0 <= seat < state.table.seats:
        raise IllegalAction(f"there is no seat {seat}", code="no_such_seat")
    if state.game.resigned >> seat & 1:
        raise IllegalAction(f"seat {seat} has already resigned", code="already_resigned")
    s = state._copy()
    s.game = s.game._replace(resigned=s.game.resigned | 1 << seat)
    ev: Events = [Event({"type": "resign", "seat": seat})]
    live = [i for i in range(s.table.seats) if not s.game.resigned >> i & 1]
    if len(live) == 1:
        finish(s, (live[0],), ev)
    return _commit(state, s, ev)


def replay(rules: RuleSet, seed: int, log: Iterable[int]) -> State:
    """Rebuild a game exactly from its seed and action log (resignations included)."""
    s = new_game(rules, seed)
    for action in log:
        s = step(s, action)[0]
    return s


def step(state: State, action: int) -> tuple[State, tuple[dict[str, Any], ...]]:
    """Apply one action of a game's log: a logged resignation resigns its seat."""
    if type(action) is int and action >> 20 == act.RESIGN:
        return resign(state, (action >> 8) & 15)
    return apply(state, action)


def default_action(state: State) -> int:
    """The safe answer to the pending decision: discard the cheapest card, concede, pass."""
    kind = state.kind
    if kind == TURN:
        values = state.table.values
        card = min(state.hands[state.to_act].distinct, key=lambda c: (values[c], c))
        return act.pack(act.DISCARD, card)
    if kind == SECOND_ACTION:
        return act.END_TURN_ACTION
    if kind == MOVE_CHOICE:
        return act.choose_move(act.TOP_TO_BOTTOM)
    return act.PASS_ACTION if kind == DRAFT_CHALLENGE else act.CONCEDE_ACTION


def _commit(state: State, s: State, ev: Events) -> tuple[State, tuple[dict[str, Any], ...]]:
    """Play resigned seats' decisions, bump the version and extend the public history."""
    while not s.over and s.game.resigned >> s.to_act & 1:
        handle(s, default_action(s), ev)
    s._legal = None
    events = tuple(ev)
    if s.log is NEW_ROUND:  # a round was dealt: its history starts at its round_start
        start = max(i for i, e in enumerate(ev) if e["type"] == "round_start")
        s.log = (events[start:], None)
    else:
        s.log = (events, state.log)
    return s, events
