"""``decision_object``: the one contract a seat to act is handed, by the platform, webhook
bots and the SDK's local runner alike (docs/bot-protocol.md)."""

from __future__ import annotations

from games.engine import (
    RuleSet,
    State,
    action_to_json,
    decision_object,
    legal_actions,
    observe,
)
from games.engine.state import DECISION_NAMES
from tests.engine.strategies import Game, states


def _first(kind: str, rules: RuleSet, seat: int = 0) -> State:
    """The first state of a random-legal game where ``seat`` must decide ``kind``."""
    for deal in range(20):
        for state in states(Game(rules, deal, deal)):
            if not state.over and DECISION_NAMES[state.kind] == kind and state.to_act == seat:
                return state
    raise AssertionError(f"no {kind} decision in 20 deals")  # pragma: no cover


def test_a_decision_names_the_game_seat_kind_version_choices_and_what_the_seat_sees() -> None:
    rules = RuleSet.preset("de2023", seats=3)
    state = _first("defend", rules, seat=2)
    seat = 2
    decision = decision_object(state, game=42, deadline="2026-11-27T17:15:00Z", time_bank_ms=900)
    assert decision == {
        "decision_id": f"42:{state.version}",
        "game": 42,
        "seat": seat,
        "kind": "defend",
        "version": state.version,
        "legal_actions": [action_to_json(a, "de2023") for a in legal_actions(state)],
        "deadline": "2026-11-27T17:15:00Z",
        "time_bank_ms": 900,
        "observation": observe(state, seat),
    }
    assert state.version > 0


def test_a_decision_without_a_time_bank_says_none() -> None:
    state = _first("turn", RuleSet.preset("2021", seats=2))
    decision = decision_object(state, game=7, deadline=None, time_bank_ms=None)
    assert (decision["kind"], decision["deadline"], decision["time_bank_ms"]) == (
        "turn",
        None,
        None,
    )
    assert decision["decision_id"] == f"7:{state.version}"
