"""``apply`` inlines ``State._copy`` for speed: both must carry every slot over."""

from __future__ import annotations

import pytest

from games.engine import ENGINE_BUILD, RuleSet, State, apply, legal_actions, new_game
from games.engine.state import FIELDS

pytestmark = pytest.mark.skipif(
    ENGINE_BUILD == "compiled",
    reason="reads State.__slots__, which a mypyc-compiled State has not: checks the source",
)


def slot_values(state: State) -> dict[str, object]:
    return {name: getattr(state, name) for name in State.__slots__}


def test_copy_carries_every_slot_and_bumps_the_version() -> None:
    state = new_game(RuleSet.preset("2021"), 11)
    legal_actions(state)
    copied = slot_values(state._copy())
    assert copied == {**slot_values(state), "version": state.version + 1, "_legal": None}


def test_apply_sets_every_slot_of_the_new_state() -> None:
    state = new_game(RuleSet.preset("2021", seats=2, advanced={"two_actions": True}), 5)
    for _ in range(40):
        state, _ = apply(state, legal_actions(state)[-1])
        slot_values(state)  # an unset slot raises AttributeError


def test_state_equality_compares_every_slot() -> None:
    # State.__eq__ reads FIELDS: a compiled State has no __slots__ at run time
    assert State.__slots__ == FIELDS
