"""Hypothesis strategies for engine properties: rule sets, seeds and random-legal playouts.

``rule_sets()`` draws any preset at 2-6 seats, alone or with any combination of the
options RULES.md names (every advanced switch, bottom protection, auto-yield, discard
pairing with wilds, hidden tucked wilds, ending modes and tie policies, ...).
``games()`` adds a deal seed and a *choice* seed: ``playout(game)`` then plays
random-legal actions chosen by ``random.Random(choices)``, so a failing example is
reproduced exactly from what hypothesis prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from random import Random
from typing import Any, NamedTuple

from hypothesis import strategies as st

from games.engine import PRESETS, RuleSet, State, apply, legal_actions, new_game, resign
from games.engine import actions as act
from games.engine.rules import (
    AUTO_YIELD,
    BOTTOM_PROTECTION,
    DISCARD_PAIR_WILD,
    ENDINGS,
    FIRST_PLAYER,
    TIE_POLICY,
)

PRESET_NAMES = tuple(sorted(PRESETS))
MAX_SEED = 2**63 - 1
# Random-legal play needs at most ~1.2 decisions per card in a round and ~7 rounds per
# game (measured over every preset and seat count); these bounds leave a wide margin.
MAX_DECISIONS_PER_CARD = 3
MAX_ROUNDS = 40
MAX_DECISIONS = 20_000

seeds = st.integers(min_value=0, max_value=MAX_SEED)
seat_counts = st.integers(min_value=2, max_value=6)
# Costly checks run at every k-th decision of a playout; k is drawn, so over many
# examples every decision of a game gets checked somewhere.
strides = st.integers(min_value=4, max_value=40)


@st.composite
def advanced_rules(draw: st.DrawFn, *, edition: str) -> dict[str, Any]:
    """Any combination of the advanced switches (RULES #26-33) this edition allows."""
    cards = edition != "2011"  # RULES 1.1: the 2011 deck has no Penny Jar, Swap or Move
    return {
        "hand_six": draw(st.booleans()),
        "two_actions": draw(st.booleans()),
        "no_rechallenge_after_loss": draw(st.booleans()),
        "improve_set": draw(st.booleans()),
        "action_cards": cards and draw(st.booleans()),
        "swap": cards and draw(st.booleans()),  # RULES #30-32: each on its own switch too
        "move": cards and draw(st.booleans()),
        "second_set_challenge": draw(st.booleans()),
        "penny_jar": cards and draw(st.booleans()),
        "penny_jar_weight": draw(st.sampled_from((2, 1))),
    }


@st.composite
def table_options(draw: st.DrawFn, *, edition: str, seats: int) -> dict[str, Any]:
    """Any combination of the non-advanced options of RULES.md section 2."""
    ending = draw(st.sampled_from(ENDINGS))
    options: dict[str, Any] = {
        "initial_discard_flip": draw(st.booleans()),
        "first_player": draw(st.sampled_from(FIRST_PLAYER)),
        "discard_pair_wild": draw(st.sampled_from(DISCARD_PAIR_WILD)),
        "hide_tucked_wilds": draw(st.booleans()),
        "bottom_protection": draw(st.sampled_from(BOTTOM_PROTECTION)),
        "auto_yield": draw(st.sampled_from(AUTO_YIELD)),
        "swap_may_take_bottom_set": draw(st.booleans()),
        "draft_challenge_requires_own_set": draw(st.booleans()),
        "ending": ending,
        "tie_policy": draw(st.sampled_from(TIE_POLICY)),
        "target": draw(st.sampled_from((1_000_000, 400_000, 1_500_000))),
        "target_inclusive": draw(st.booleans()),
    }
    if ending in ("highest_after_n", "first_to_n_round_wins"):
        options["ending_rounds"] = draw(st.none() | st.integers(min_value=1, max_value=3))
    if seats <= 3:  # None follows the edition (RULES #34); both switches are playable
        options["draft_piles"] = draw(st.sampled_from((None, True, False)))
    if draw(st.booleans()):
        options["hand_size"] = draw(st.integers(min_value=3, max_value=7))
    return options


@st.composite
def rule_sets(
    draw: st.DrawFn,
    /,
    *,
    presets: tuple[str, ...] = PRESET_NAMES,
    seats: st.SearchStrategy[int] = seat_counts,
    **fixed: Any,
) -> RuleSet:
    """A preset at 2-6 seats: as printed, or with any combination of options.

    ``fixed`` pins options (``auto_yield="empty_hand_only"``) over whatever is drawn.
    """
    name = draw(st.sampled_from(presets))
    n = draw(seats)
    edition = PRESETS[name].edition
    options: dict[str, Any] = {"seats": n}
    if draw(st.booleans()):  # about half the examples vary the options
        options.update(draw(table_options(edition=edition, seats=n)))
        options["advanced"] = draw(advanced_rules(edition=edition))
    options.update(fixed)
    return RuleSet.preset(name, **options)


@dataclass(frozen=True)
class Game:
    """A game to play out: rules, the deal seed, the choice seed, and resignations.

    ``resignations`` are (decision number, seat): before that decision, the seat
    resigns (skipped if it already has).
    """

    rules: RuleSet
    seed: int
    choices: int
    resignations: tuple[tuple[int, int], ...] = ()


@st.composite
def games(
    draw: st.DrawFn,
    rules: st.SearchStrategy[RuleSet] | None = None,
    *,
    resignations: bool = False,
) -> Game:
    """A Game over ``rules`` (default: any rule set), optionally with resignations."""
    ruleset = draw(rules if rules is not None else rule_sets())
    quits: tuple[tuple[int, int], ...] = ()
    if resignations:
        seat = st.integers(min_value=0, max_value=ruleset.seats - 1)
        moment = st.integers(min_value=0, max_value=800)
        quits = tuple(draw(st.lists(st.tuples(moment, seat), max_size=ruleset.seats)))
    return Game(ruleset, draw(seeds), draw(seeds), quits)


class Step(NamedTuple):
    """One decision of a playout: the state before, the action (or resignation), after."""

    before: State
    action: int  # a packed action, or ``actions.resign(seat)`` for a resignation
    after: State
    events: tuple[dict[str, Any], ...]


def is_resignation(action: int) -> bool:
    """Whether a logged action is a resignation (``actions.resign(seat)``)."""
    return act.action_type(action) == act.RESIGN


def choose(state: State, rng: Random) -> int:
    """A uniformly random legal action, drawn with ``random()`` (like the simulator)."""
    acts = legal_actions(state)
    return acts[int(rng.random() * len(acts))]


def playout(game: Game, limit: int = MAX_DECISIONS) -> Iterator[Step]:
    """Play random-legal actions from the deal until the game ends or ``limit`` decisions."""
    rng = Random(game.choices)
    quits = dict(game.resignations)
    state = new_game(game.rules, game.seed)
    for n in range(limit):
        if state.over:
            return
        seat = quits.get(n, -1)
        if seat >= 0 and not state.resigned >> seat & 1:
            action = act.resign(seat)
            after, events = resign(state, seat)
        else:
            action = choose(state, rng)
            after, events = apply(state, action)
        yield Step(state, action, after, events)
        state = after


def play_to_end(game: Game, limit: int = MAX_DECISIONS) -> tuple[State, list[int]]:
    """The final state of a playout (or its state after ``limit`` decisions) and its log."""
    state = new_game(game.rules, game.seed)
    log = []
    for step in playout(game, limit):
        log.append(step.action)
        state = step.after
    return state, log


def states(game: Game, limit: int = MAX_DECISIONS) -> Iterator[State]:
    """Every state of a playout, from the deal on."""
    yield new_game(game.rules, game.seed)
    for step in playout(game, limit):
        yield step.after
