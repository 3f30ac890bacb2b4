"""The table in words (games.web.board): every event the engine emits reads as a
sentence, and every legal action becomes a labelled control that submits exactly it."""

from __future__ import annotations

import json
import random

from django.utils import translation

from games.engine import RuleSet, action_to_json, apply, legal_actions, new_game, observe
from games.engine.state import DECISION_NAMES
from games.web.board import Table, display_name

ADVANCED = {
    "action_cards": True,
    "improve_set": True,
    "two_actions": True,
    "penny_jar": True,
    "second_set_challenge": True,
}


def _rules(seats: int) -> RuleSet:
    data = RuleSet.preset("2021", seats=seats, ending="quick").to_json()
    return RuleSet.from_json({**data, "advanced": ADVANCED})


def test_every_event_and_every_action_of_many_games_reads_in_words() -> None:
    events: set[str] = set()
    actions: set[str] = set()
    for seats in (2, 3, 4):
        for seed in range(6):
            state = new_game(_rules(seats), seed)
            table = Table("2021", [f"p{n}" for n in range(seats)])
            rng = random.Random(seed)
            while not state.over:
                legal = [action_to_json(a, "2021") for a in legal_actions(state)]
                groups = table.controls(legal, DECISION_NAMES[state.kind])
                submitted = [json.loads(c.action) for g in groups for c in g.controls]
                assert sorted(map(json.dumps, submitted)) == sorted(map(json.dumps, legal))
                assert all(c.label and g.title for g in groups for c in g.controls)
                actions.update(a["type"] for a in legal)
                state, emitted = apply(state, rng.choice(legal_actions(state)))
                for event in emitted:
                    words = table.sentence(event)
                    assert ": " not in words or event["type"] == "round_start", event
                    events.add(event["type"])
            view = observe(state, 0)
            assert table.decision_words(view) == "The game is over."

    assert {"pair", "challenge", "draft", "improve", "swap", "move", "round_end"} <= events
    assert {"pair", "discard", "challenge", "draft", "play", "concede", "end_turn"} <= actions


def test_cards_have_the_editions_names_and_values_in_the_readers_language() -> None:
    table = Table("de2023", ["anna", "ben"])

    with translation.override("de"):
        card = table.card("muenzenglas")
        hidden = table.card(None)
        words = table.sentence({"type": "discard", "seat": 1, "card": "eigenheim"})

    assert (card.name, card.value) == ("Münzenglas", "1.000 $")
    assert hidden.kind == "hidden"
    assert hidden.name == "verdeckt"
    assert words == "ben hat Eigenheim abgelegt."
    assert display_name("bot.greedy") == "greedy"
    assert display_name("robot.x") == "robot.x"
