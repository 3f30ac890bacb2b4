"""docs/schemas describe exactly what the platform sends and accepts: checked on real games.

Decisions come from real engine states in several presets (advanced rules, draft piles,
every edition), built by the same functions the runner uses for webhook seats; every
legal action, and example answers and handshakes, are validated too. The schemas forbid
unknown fields, so a field added to the decision or the observation fails here until
the docs say what it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from random import Random
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bots import verdicts, webhook
from games.engine import (
    RuleSet,
    State,
    action_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
    resign,
)
from games.engine.actions import TYPE_NAMES
from games.engine.cards import EDITIONS
from games.engine.simulate import ALL_ADVANCED
from games.engine.state import DECISION_NAMES

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schemas"
PROTOCOL_DOC = ROOT / "docs" / "bot-protocol.md"
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

# (name, preset, options over it): every edition, 2-6 seats, draft piles, advanced rules
TABLES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("2021 4 seats", "2021", {"seats": 4}),
    ("2021 3 seats, draft piles", "2021", {"seats": 3}),
    ("2021 2 seats, draft piles", "2021", {"seats": 2}),
    ("2011 5 seats", "2011", {"seats": 5}),
    ("de2023 6 seats", "de2023", {"seats": 6}),
    ("2021 3 seats, every advanced rule", "2021", {"seats": 3, "advanced": ALL_ADVANCED}),
    (
        "2021 4 seats, advanced, first-formed protection, open tucks",
        "2021",
        {
            "seats": 4,
            "advanced": ALL_ADVANCED,
            "bottom_protection": "first_formed",
            "hide_tucked_wilds": False,
        },
    ),
)
GAMES_PER_TABLE = 3
EVERY = 200  # besides every decision that shows something new, validate every 200th


def _rules(preset: str, options: dict[str, Any]) -> RuleSet:
    data = RuleSet.preset(preset).to_json()
    options = dict(options)
    data["advanced"].update(options.pop("advanced", {}))
    data.update(options)
    return RuleSet.from_json(data)


@cache
def _registry() -> Registry[Any]:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def _schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return data


@cache
def _validator(name: str, pointer: str = "") -> Draft202012Validator:
    """A validator for a schema file, or for the part of it at ``pointer`` (``#/$defs/...``)."""
    uri = _schema(name)["$id"] + pointer
    return Draft202012Validator(
        {"$ref": uri},
        registry=_registry(),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _errors(name: str, instance: Any, pointer: str = "") -> list[str]:
    found = _validator(name, pointer).iter_errors(instance)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def _body(game_id: int, state: State, time_bank_ms: int = 15_000) -> dict[str, Any]:
    """The decision POST body exactly as the runner and ``manage.py play`` send it."""
    payload, _ = verdicts.webhook_decision(
        game_id, state, decision_ms=1000, time_bank_ms=time_bank_ms, now=NOW
    )
    body = {"protocol_version": webhook.PROTOCOL_VERSION, "type": "decision", **payload}
    data: dict[str, Any] = json.loads(webhook._dumps(body))
    return data


def _games() -> Iterator[tuple[str, int, State]]:
    """(table, game number, state) at every decision of random-legal games."""
    for name, preset, options in TABLES:
        rules = _rules(preset, options)
        for g in range(GAMES_PER_TABLE):
            rng = Random(f"{name}:{g}")
            state = new_game(rules, seed=100 + g)
            while not state.over:
                yield name, g, state
                acts = legal_actions(state)
                state = apply(state, acts[int(rng.random() * len(acts))])[0]
            yield name, g, state


@cache
def _sampled() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Decision bodies worth validating, every distinct legal action, and final views."""
    bodies: list[dict[str, Any]] = []
    actions: dict[tuple[str, int], dict[str, Any]] = {}
    finals: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for count, (table, g, state) in enumerate(_games()):
        if state.over:
            if g == 0:
                finals.extend(observe(state, seat) for seat in (0, None))
            continue
        edition = state.rules.edition
        legal = [
            actions.setdefault((edition, a), action_to_json(a, edition))
            for a in legal_actions(state)
        ]
        ch = state.challenge
        features = {
            (table, "kind", DECISION_NAMES[state.kind]),
            (table, "challenge", str(ch and ch.depth)),
            *(("event", e["type"]) for e in state.history),
            *(("action", a["type"]) for a in legal),
        }
        new = features - seen
        if new or count % EVERY == 0:
            seen |= new
            bodies.append(_body(g + 1, state))
    return bodies, list(actions.values()), finals


# --- the schemas themselves -----------------------------------------------------------


@pytest.mark.parametrize("name", ["decision", "action", "answer", "handshake"])
def test_each_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = _schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_the_card_keys_are_every_editions_cards() -> None:
    keys = {c.key for e in EDITIONS.values() for c in e.cards if c.count}
    assert set(_schema("action")["$defs"]["card"]["enum"]) == keys


def test_the_action_types_are_the_engines_except_resign() -> None:
    types = [branch["properties"]["type"]["const"] for branch in _schema("action")["oneOf"]]
    assert sorted(types) == sorted(t for t in TYPE_NAMES if t != "resign")


def test_the_decision_kinds_are_the_engines_while_the_game_runs() -> None:
    kinds = _schema("decision")["$defs"]["kind"]["enum"]
    assert kinds == [k for k in DECISION_NAMES if k != "over"]


# --- real payloads ----------------------------------------------------------------------


def test_real_decisions_of_every_preset_match_the_decision_schema() -> None:
    bodies, _, _ = _sampled()
    assert len(bodies) > 50
    for body in bodies:
        assert _errors("decision", body) == [], body["decision_id"]


def test_the_sample_covers_every_kind_action_and_event() -> None:
    bodies, actions, finals = _sampled()
    kinds = {b["kind"] for b in bodies}
    events = {e["type"] for b in bodies for e in b["observation"]["history"]}
    events |= {e["type"] for f in finals for e in f["history"]}
    depths = {
        b["observation"]["challenge"]["depth"] for b in bodies if b["observation"]["challenge"]
    }
    assert kinds == set(_schema("decision")["$defs"]["kind"]["enum"])
    assert {a["type"] for a in actions} == {t for t in TYPE_NAMES if t != "resign"}
    assert depths == {"top", "second", "draft"}
    event_types = set(_schema("decision")["$defs"]["events"])
    assert events == event_types - {"resign"}  # resignation: see its own test


def test_every_legal_action_matches_the_action_schema() -> None:
    _, actions, _ = _sampled()
    for action in actions:
        assert _errors("action", action) == [], action


def test_observations_of_ended_games_match_for_seats_and_spectators() -> None:
    _, _, finals = _sampled()
    for view in finals:
        assert view["over"] is True
        assert _errors("decision", view, "#/$defs/observation") == []


def test_a_decision_after_a_resignation_matches() -> None:
    state = new_game(_rules("2021", {"seats": 3}), seed=5)
    for _ in range(10):
        state = apply(state, legal_actions(state)[0])[0]
    state = resign(state, (state.to_act + 1) % 3)[0]
    body = _body(1, state)
    assert body["observation"]["resigned"]
    assert "resign" in {e["type"] for e in body["observation"]["history"]}
    assert _errors("decision", body) == []


def test_an_empty_time_bank_and_a_deadline_in_iso_8601_match() -> None:
    state = new_game(_rules("2021", {"seats": 4}), seed=1)
    body = _body(1, state, time_bank_ms=0)
    assert datetime.fromisoformat(body["deadline"]) == datetime(2026, 5, 1, 12, 0, 1, tzinfo=UTC)
    assert _errors("decision", body) == []


def test_the_decision_schema_refuses_unknown_fields_and_bad_values() -> None:
    body = _body(1, new_game(_rules("2021", {"seats": 4}), seed=1))
    assert _errors("decision", {**body, "surprise": 1})
    assert _errors("decision", {**body, "observation": {**body["observation"], "deck": []}})
    assert _errors("decision", {**body, "kind": "over"})
    assert _errors("decision", {**body, "protocol_version": 2})
    assert _errors("decision", {**body, "legal_actions": []})
    without = {k: v for k, v in body.items() if k != "decision_ms"}
    assert _errors("decision", without)


def test_the_api_decision_is_the_same_object_without_the_webhook_envelope() -> None:
    body = _body(1, new_game(_rules("2021", {"seats": 4}), seed=1))
    api = {k: v for k, v in body.items() if k not in ("protocol_version", "type", "decision_ms")}
    assert _errors("decision", api, "#/$defs/api_decision") == []
    assert _errors("decision", body, "#/$defs/api_decision")


# --- answers and handshakes ------------------------------------------------------------


def test_answers_with_any_legal_action_and_a_debug_note_match() -> None:
    _, actions, _ = _sampled()
    for action in actions[:50]:
        assert _errors("answer", {"action": action}) == []
    assert _errors("answer", {"action": actions[0], "debug": "why"}) == []
    # a longer note is cut to 1 KiB, not refused; "note" is its older name
    assert _errors("answer", {"action": actions[0], "debug": "x" * 5000}) == []
    assert _errors("answer", {"action": actions[0], "note": "x" * 300}) == []


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"move": {"type": "concede"}},
        {"action": {"type": "discard"}},
        {"action": {"type": "discard", "card": "joker"}},
        {"action": {"type": "concede", "card": "gold"}},
        {"action": {"type": "resign", "seat": 0}},
        {"action": {"type": "concede"}, "debug": ["not", "a string"]},
        {"action": {"type": "concede"}, "note": 7},
        {"action": {"type": "concede"}, "extra": True},
    ],
)
def test_malformed_answers_do_not_match(answer: dict[str, Any]) -> None:
    assert _errors("answer", answer)


def test_a_challenge_answer_may_leave_out_its_depth() -> None:
    assert (
        _errors("answer", {"action": {"type": "challenge", "target": 1, "cards": ["gold"]}}) == []
    )


def test_handshakes_match_and_wrong_versions_do_not() -> None:
    assert _errors("handshake", {"name": "first-pair", "protocol_version": 1}) == []
    extra = {"name": "b", "protocol_version": 1, "author": "alice", "version": "2", "sdk": "x"}
    assert _errors("handshake", extra) == []
    assert _errors("handshake", {"name": "b", "protocol_version": 2})
    assert _errors("handshake", {"protocol_version": 1})


def test_every_json_example_in_the_protocol_doc_matches_its_schema() -> None:
    """Examples in docs/bot-protocol.md follow a ``<!-- schema: name -->`` marker."""
    text = PROTOCOL_DOC.read_text()
    examples = re.findall(r"<!-- schema: ([\w#/$]+) -->\s*```json\n(.*?)```", text, re.S)
    assert len(examples) >= 4
    for target, raw in examples:
        name, _, pointer = target.partition("#")
        assert _errors(name, json.loads(raw), f"#{pointer}" if pointer else "") == [], target
