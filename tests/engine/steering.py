"""Playouts steered towards one kind of decision: the never-peek property's tool.

Random play seldom reaches some decisions: a two-seat draft challenge, a counter in a
three-seat game, a Move revealed in a draft pile (RULES #36, 2.8.5). A property that must
hold at every kind of decision at every table size reaches each on purpose: it plays with
a steering policy that prefers the actions leading to that kind. The policy reads the whole
state (it is the test's driver, not a player), and keeps a share of random moves so the
positions it reaches vary. A plain module, not a test module (tests/engine/hidden.py says
why).
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

from hypothesis import strategies as st

from games.engine import State, apply, legal_actions, new_game
from games.engine import actions as act
from games.engine.cards import MOVE
from games.engine.state import DECISION_NAMES
from tests.engine.strategies import MAX_DECISIONS, PRESET_NAMES, Game, rule_sets, seeds

# Every decision kind, and the table sizes that have it: draft piles, and so draft
# challenges and Moves revealed in a pile, are for 2 and 3 seats (RULES #34-37).
KINDS = ("turn", "second_action", "defend", "counter", "draft_challenge", "move_choice")
DRAFT_KINDS = frozenset({"draft_challenge", "move_choice"})
SEATS = (2, 3, 4, 5, 6)
CELLS = tuple(
    (seats, kind) for seats in SEATS for kind in KINDS if seats <= 3 or kind not in DRAFT_KINDS
)
RANDOM_SHARE = 0.15  # of the steered decisions, played at random


def needs(kind: str) -> tuple[tuple[str, ...] | None, dict[str, Any]]:
    """The presets (None: any) and the options a game needs to have decisions of ``kind``."""
    if kind == "second_action":
        return None, {"advanced": {"two_actions": True}}  # RULES #26
    if kind == "draft_challenge":
        return None, {"draft_piles": True}  # RULES #34, #35
    if kind == "move_choice":  # RULES #36: Move cards in the deck, so in the piles
        return ("2021", "de2023"), {"draft_piles": True, "advanced": {"action_cards": True}}
    return None, {}


@st.composite
def steered_games(draw: st.DrawFn, kind: str, seats: int) -> Game:
    """A game of ``seats`` seats whose rules allow decisions of ``kind``; every other
    option is drawn (tests/engine/strategies.py), prompts leak nothing (RULES #17)."""
    presets, required = needs(kind)
    base = draw(
        rule_sets(
            presets=presets or PRESET_NAMES,
            seats=st.just(seats),
            auto_yield="empty_hand_only",
        )
    )
    return Game(base.with_options(**required), draw(seeds), draw(seeds))


def positions(game: Game, kind: str, limit: int = MAX_DECISIONS) -> Iterator[State]:
    """The states at decisions of ``kind`` along a playout steered towards them."""
    rng = Random(game.choices)
    state = new_game(game.rules, game.seed)
    for _ in range(limit):
        if state.over:
            return
        if DECISION_NAMES[state.kind] == kind:
            yield state
        state = apply(state, steer(state, kind, rng))[0]


def steer(state: State, kind: str, rng: Random) -> int:
    """An action that leads towards decisions of ``kind`` (now and then a random one)."""
    legal = legal_actions(state)
    if rng.random() < RANDOM_SHARE:
        return legal[int(rng.random() * len(legal))]
    return max(legal, key=lambda a: (_appeal(state, a, kind), rng.random()))


def _appeal(state: State, action: int, kind: str) -> float:
    """How much ``action`` brings decisions of ``kind`` nearer (higher is nearer)."""
    t = act.action_type(action)
    if t in (act.PAIR, act.PAIR_DISCARD, act.IMPROVE):
        return 3  # stacks to challenge and to challenge with (RULES #10, #11)
    if t == act.CHALLENGE:  # a challenge against an empty hand ends at once (RULES #17)
        return 4 if state.hands[act.unpack(action)[3]].size else 1
    if t == act.DRAFT:
        return _draft_appeal(state, action, kind)
    if t == act.PLAY:  # answering keeps a challenge going: defences, then counters
        return 0 if kind == "move_choice" else 3
    if t in (act.PASS, act.CONCEDE):  # the drafted set lands, and its piles flip
        return 2 if kind == "move_choice" else 0
    if t == act.END_TURN:
        return 0
    return 1  # discards, Swap and Move actions, a Move's direction


def _draft_appeal(state: State, action: int, kind: str) -> float:
    """Drafts make draft challenges; for a revealed Move, dig towards one (RULES #36)."""
    if kind != "move_choice":
        return 5 if kind == "draft_challenge" else 2
    used = act.unpack(action)[4]
    piles = [pile for p, pile in enumerate(state.piles) if used >> p & 1]
    if any(len(pile) >= 2 and pile[-2] == MOVE for pile in piles):
        return 6  # the flip after this draft reveals a Move
    return 4 if any(MOVE in pile for pile in piles) else 2
