"""The table as drawn (games.web.board, moves, story): every event the engine emits reads
as a sentence, every legal action becomes a move made of the cards and places it names,
and the end of a game reads as a result."""

from __future__ import annotations

import json
import random
from collections import Counter

from django.utils import translation

from games.engine import RuleSet, action_to_json, apply, legal_actions, new_game, observe
from games.engine.state import DECISION_NAMES
from games.web.board import Table, display_name
from games.web.moves import moves
from games.web.story import Story

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
            story = Story(table)
            rng = random.Random(seed)
            while not state.over:
                legal = [action_to_json(a, "2021") for a in legal_actions(state)]
                groups = moves(table, legal, DECISION_NAMES[state.kind], state.to_act)
                submitted = [json.loads(m.action) for g in groups for m in g.moves]
                assert sorted(map(json.dumps, submitted)) == sorted(map(json.dumps, legal))
                assert all(m.label and g.title for g in groups for m in g.moves)
                actions.update(a["type"] for a in legal)
                state, emitted = apply(state, rng.choice(legal_actions(state)))
                for event in emitted:
                    words = story.sentence(event)
                    assert ": " not in words or event["type"] == "round_start", event
                    events.add(event["type"])
            view = observe(state, 0)
            assert table.decision_words(view) == "The game is over."

    assert {"pair", "challenge", "draft", "improve", "swap", "move", "round_end"} <= events
    assert {"pair", "discard", "challenge", "draft", "play", "concede", "end_turn"} <= actions


def test_each_move_names_the_hand_cards_it_plays_and_the_places_it_points_at() -> None:
    """What the page's script lights up: a move is made of exactly these taps, so a card
    or place that is in no legal move can never be picked."""
    for seats in (2, 3, 4):
        state = new_game(_rules(seats), 3)
        table = Table("2021", [f"p{n}" for n in range(seats)])
        rng = random.Random(seats)
        while not state.over:
            seat = state.to_act
            hand = Counter(observe(state, seat)["hand"])
            legal = [action_to_json(a, "2021") for a in legal_actions(state)]
            for group in moves(table, legal, DECISION_NAMES[state.kind], seat):
                for m in group.moves:
                    action = json.loads(m.action)
                    assert Counter(m.hand) <= hand, (action, hand)  # only cards in hand
                    expected = _places(action, seat)
                    assert set(m.targets) == expected, action
            state, _ = apply(state, rng.choice(legal_actions(state)))


def _places(action: dict[str, object], seat: int) -> set[str]:
    kind = action["type"]
    if kind == "pair_discard":
        return {"discard"}
    if kind == "challenge":
        return {f"{action['depth']}-{action['target']}"}
    if kind == "draft":
        return {f"pile-{p}" for p in action["piles"]}  # type: ignore[attr-defined]
    if kind == "improve":
        return {f"top-{seat}"}
    if kind in ("swap", "move"):
        return {f"top-{action['target']}"}
    return set()


def test_a_finished_game_reads_as_a_result_with_places_and_the_ending_rule() -> None:
    state = new_game(RuleSet.preset("2021", seats=3, ending="quick"), 5)
    rng = random.Random(1)
    while not state.over:
        state, _ = apply(state, rng.choice(legal_actions(state)))
    table = Table("2021", ["ann", "ben", "cat"])
    view = observe(state, 1)
    rounds = [list(view["history"])]

    result = Story(table).result(view, state.rules.to_json(), rounds)

    assert result is not None
    assert [p.place for p in result.places] == sorted(p.place for p in result.places)
    assert result.winners == ", ".join(table.seat(s) for s in view["winners"])
    assert [p.you for p in result.places].count(True) == 1
    assert result.ending == "Quick game: one round decides it."
    assert result.rounds[0].startswith("Round 1 went to ")
    assert "sets were formed" in result.rounds[0]


def test_cards_have_the_editions_names_and_values_in_the_readers_language() -> None:
    table = Table("de2023", ["anna", "ben"])

    with translation.override("de"):
        card = table.card("muenzenglas")
        hidden = table.card(None)
        words = Story(table).sentence({"type": "discard", "seat": 1, "card": "eigenheim"})

    assert (card.name, card.value, card.tier) == ("Münzenglas", "1.000 $", "wild jar")
    assert (table.card("gold").tier, table.card("silber").tier) == ("wild gold", "wild silver")
    assert hidden.kind == "hidden"
    assert hidden.symbol == "back"
    assert hidden.name == "verdeckt"
    assert words == "ben hat Eigenheim abgelegt."
    assert display_name("bot.greedy") == "greedy"
    assert display_name("robot.x") == "robot.x"
