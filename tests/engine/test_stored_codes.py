"""Stored encodings are a format (STYLE 4, "Persistence seams"): pinned here, literally.

The engine's packed actions are stored as ints in ``Event.action_code`` and
``Playout.codes`` and replayed from there: renumber an action type, a card id or a field
offset and every stored game replays into another game. Enum values are stored as
strings in every table that has a status, kind or verdict, and in ``Game.rules``. So the
values are written out below by hand, not computed from the code under test; a change
that breaks stored games fails here first, and a new value must be added on purpose.
(Pure engine values first; the models' choices at the bottom need Django, not a database.)
"""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.db import models

from games.engine import RuleSet, action_from_json, action_to_json
from games.engine import actions as act
from games.engine import rules as options
from games.engine.cards import EDITIONS, NO_CARD
from games.engine.state import DECISION_NAMES

# --- packed actions: type << 20 | card a << 16 | card b << 12 | seat << 8 | extra ---------

ACTION_TYPES = {
    "pair": 0,
    "pair_discard": 1,
    "discard": 2,
    "challenge": 3,
    "draft": 4,
    "improve": 5,
    "swap": 6,
    "move": 7,
    "end_turn": 8,
    "play": 9,
    "concede": 10,
    "pass": 11,
    "choose_move": 12,
    "resign": 13,
}

# Every action type, every field at its offset, every card role, both directions, both
# depths and every draft pile bit, in the 2021 edition's keys (card ids are roles: the
# same in every edition, pinned below). 0xF in a card nibble is "no card".
ACTIONS_2021: list[tuple[int, dict[str, Any]]] = [
    (0x000000, {"type": "pair", "cards": ["comic_books", "comic_books"]}),
    (0x03A000, {"type": "pair", "cards": ["jewels", "silver"]}),
    (0x09B000, {"type": "pair", "cards": ["cabin", "gold"]}),
    (0x02C000, {"type": "pair", "cards": ["toy_train", "penny_jar"]}),
    (0x14F000, {"type": "pair_discard", "card": "cash_under_the_mattress"}),
    (0x1BF000, {"type": "pair_discard", "card": "gold"}),
    (0x20F000, {"type": "discard", "card": "comic_books"}),
    (0x2AF000, {"type": "discard", "card": "silver"}),
    (0x2DF000, {"type": "discard", "card": "swap"}),
    (0x2EF000, {"type": "discard", "card": "move"}),
    (0x35F100, {"type": "challenge", "target": 1, "depth": "top", "cards": ["piggy_bank"]}),
    (0x3BF500, {"type": "challenge", "target": 5, "depth": "top", "cards": ["gold"]}),
    (0x3CF201, {"type": "challenge", "target": 2, "depth": "second", "cards": ["penny_jar"]}),
    (
        0x36A301,
        {"type": "challenge", "target": 3, "depth": "second", "cards": ["scooter", "silver"]},
    ),
    (
        0x366701,
        {"type": "challenge", "target": 7, "depth": "second", "cards": ["scooter", "scooter"]},
    ),
    (0x40F001, {"type": "draft", "card": "comic_books", "piles": [0]}),
    (0x4BF005, {"type": "draft", "card": "gold", "piles": [0, 2]}),
    (0x47F007, {"type": "draft", "card": "sport_plane", "piles": [0, 1, 2]}),
    (0x42F002, {"type": "draft", "card": "toy_train", "piles": [1]}),
    (0x58F000, {"type": "improve", "card": "classic_auto"}),
    (0x6FF000, {"type": "swap", "target": 0}),
    (0x6FF500, {"type": "swap", "target": 5}),
    (0x7FF200, {"type": "move", "target": 2, "direction": "top_to_bottom"}),
    (0x7FF001, {"type": "move", "target": 0, "direction": "bottom_to_top"}),
    (0x8FF000, {"type": "end_turn"}),
    (0x95F000, {"type": "play", "cards": ["piggy_bank"]}),
    (0x9CF000, {"type": "play", "cards": ["penny_jar"]}),
    (0x93B000, {"type": "play", "cards": ["jewels", "gold"]}),
    (0xAFF000, {"type": "concede"}),
    (0xBFF000, {"type": "pass"}),
    (0xCFF000, {"type": "choose_move", "direction": "top_to_bottom"}),
    (0xCFF001, {"type": "choose_move", "direction": "bottom_to_top"}),
    (0xDFF300, {"type": "resign", "seat": 3}),
]

# Card ids by edition: the nibble a packed action holds (RULES.md section 1's cards).
CARD_IDS = {
    "2021": (
        "comic_books", "piano", "toy_train", "jewels", "cash_under_the_mattress",
        "piggy_bank", "scooter", "sport_plane", "classic_auto", "cabin",
        "silver", "gold", "penny_jar", "swap", "move",
    ),
    "2011": (
        "baseball_cards", "cash_under_the_mattress", "stamp_collection", "piggy_bank",
        "stocks", "bank_account", "coin_collection", "jewels", "classic_auto", "home",
        "silver", "gold", "penny_jar", "swap", "move",
    ),
    "de2023": (
        "baseballkarten", "muenzsammlung", "sparschwein", "matratzengeld", "bankkonto",
        "aktien", "motorboot", "juwelen", "oldtimer", "eigenheim",
        "silber", "gold", "muenzenglas", "tauschen", "verschieben",
    ),
}  # fmt: skip


def test_action_types_keep_their_numbers() -> None:
    assert {name: act.TYPES[name] for name in act.TYPE_NAMES} == ACTION_TYPES
    assert len(act.TYPE_NAMES) == len(ACTION_TYPES)  # a new type is added here on purpose


@pytest.mark.parametrize(
    ("code", "json"), ACTIONS_2021, ids=lambda v: f"{v:#08x}" if isinstance(v, int) else ""
)
def test_each_stored_action_code_still_means_the_same_action(
    code: int, json: dict[str, Any]
) -> None:
    assert action_to_json(code, "2021") == json
    assert action_from_json(json, "2021") == code


def test_every_action_type_is_pinned_by_a_stored_code() -> None:
    assert {code >> 20 for code, _ in ACTIONS_2021} == set(ACTION_TYPES.values())


@pytest.mark.parametrize("edition", sorted(CARD_IDS))
def test_card_ids_keep_their_numbers_in_every_edition(edition: str) -> None:
    assert EDITIONS[edition].keys == CARD_IDS[edition]


def test_no_card_is_the_nibble_f() -> None:
    assert NO_CARD == 0xF


# --- engine values stored as strings (Game.decision_kind, Game.rules) --------------------


def test_decision_kinds_keep_their_names_and_numbers() -> None:
    """``Game.decision_kind`` stores the name, the engine's state JSON the number."""
    assert dict(enumerate(DECISION_NAMES)) == {
        0: "turn",
        1: "second_action",
        2: "defend",
        3: "counter",
        4: "draft_challenge",
        5: "move_choice",
        6: "over",
    }


def test_rule_option_values_keep_their_names() -> None:
    """``Game.rules`` stores a RuleSet's JSON: option values and edition keys (RULES #4,
    #6, #12, #17, #23, #24)."""
    assert options.FIRST_PLAYER == ("rotate", "lowest_total_starts", "random_each_round")
    assert options.DISCARD_PAIR_WILD == ("both", "hand_wild_only", "none")
    assert options.AUTO_YIELD == ("empty_hand_only", "no_legal_card")
    assert options.BOTTOM_PROTECTION == ("position", "first_formed")
    assert options.ENDINGS == ("classic", "quick", "highest_after_n", "first_to_n_round_wins")
    assert options.TIE_POLICY == ("extra_round", "shared_win")
    assert sorted(EDITIONS) == ["2011", "2021", "de2023"]


def test_a_stored_rule_set_still_reads_as_the_same_rules() -> None:
    stored = {
        "advanced": {
            "action_cards": False,
            "hand_six": False,
            "improve_set": False,
            "move": False,  # added with Swap-only and Move-only decks (RULES #30-32)
            "no_rechallenge_after_loss": True,
            "penny_jar": False,
            "penny_jar_weight": 2,
            "second_set_challenge": False,
            "swap": False,
            "two_actions": False,
        },
        "auto_yield": "empty_hand_only",
        "bottom_protection": "position",
        "discard_pair_wild": "both",
        "draft_challenge_requires_own_set": False,
        "draft_piles": None,
        "edition": "2021",
        "ending": "classic",
        "ending_rounds": None,
        "first_player": "rotate",
        "hand_size": None,
        "hide_tucked_wilds": True,
        "initial_discard_flip": True,
        "max_players": 6,
        "seats": 4,
        "swap_may_take_bottom_set": True,
        "target": 1_000_000,
        "target_inclusive": True,
        "tie_policy": "extra_round",
    }
    assert RuleSet.preset("2021", seats=4).to_json() == stored
    assert RuleSet.from_json(stored) == RuleSet.preset("2021", seats=4)
    # rules stored before the switches of their own still read, as the same rules
    advanced = {k: v for k, v in stored["advanced"].items() if k not in ("swap", "move")}  # type: ignore[attr-defined]  # a dict, as written above
    before = {**stored, "advanced": advanced}
    assert RuleSet.from_json(before) == RuleSet.preset("2021", seats=4)


# --- the models' stored choices -----------------------------------------------------------

STORED_CHOICES: dict[tuple[str, str], list[str]] = {
    ("games.Game", "status"): ["open", "active", "finished", "aborted"],
    ("games.Game", "mode"): ["digital", "recorded"],
    **{
        (model, "origin"): [
            "deal",
            "api",
            "web",
            "builtin",
            "autopilot",
            "webhook",
            "fallback",
            "timeout",
            "resign",
        ]
        for model in ("games.Event", "games.Playout")
    },
    ("bots.Bot", "kind"): ["builtin", "webhook", "api_client"],
    ("bots.BotVersion", "status"): [
        "pending",
        "validating",
        "ready",
        "failed",
        "paused",  # health (issue 30): off the ladder until resumed
        "retired",
    ],
    ("bots.BotVersion", "pause_reason"): ["strikes", "autopilot", "owner"],
    ("bots.Match", "kind"): ["ladder", "validation", "friendly"],
    ("bots.Match", "status"): ["scheduled", "running", "finished", "voided"],
    ("bots.Strike", "reason"): [
        "timeout",
        "connection_error",
        "http_error",
        "malformed",
        "illegal",
    ],
    ("tournaments.Competition", "kind"): ["season", "tournament"],
    ("tournaments.Tournament", "format"): ["round_robin", "swiss"],
    ("tournaments.Tournament", "entrants"): ["humans", "bots"],
    ("tournaments.Tournament", "status"): ["draft", "running", "finished"],
    ("tournaments.Tournament", "play"): ["digital", "recorded"],
    ("tournaments.TournamentRound", "status"): ["seated", "playing", "finished"],
    ("tournaments.ScoreRecord", "kind"): ["enter", "correct", "void"],
    ("tournaments.ScoreRecord", "status"): ["pending", "confirmed", "disputed"],
    ("tournaments.ScoreVote", "verdict"): ["confirm", "dispute"],
    ("tournaments.QueueTicket", "status"): ["waiting", "seated", "left"],
    ("tournaments.RoundClock", "policy"): ["finish_round", "stop"],
    ("tournaments.League", "substitute_policy"): ["fixed", "seat"],
    ("tournaments.Substitution", "policy"): ["fixed", "seat"],
    ("tournaments.Penalty", "kind"): ["points", "dollars"],
    ("accounts.User", "language"): ["en", "de"],
}
STORED_DEFAULTS: dict[tuple[str, str], str] = {
    ("games.Game", "status"): "open",
    ("games.Game", "mode"): "digital",
    ("games.Event", "origin"): "api",
    ("bots.BotVersion", "status"): "pending",
    ("bots.Match", "kind"): "ladder",
    ("bots.Match", "status"): "scheduled",
    ("tournaments.Tournament", "status"): "draft",
    ("tournaments.Tournament", "play"): "digital",
    ("tournaments.TournamentRound", "status"): "seated",
    ("tournaments.ScoreRecord", "status"): "pending",
    ("tournaments.QueueTicket", "status"): "waiting",
    ("tournaments.League", "substitute_policy"): "fixed",
}
APPS = ("games", "bots", "tournaments", "accounts")


def _field(label: str, name: str) -> models.Field[Any, Any]:
    field = apps.get_model(label)._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field


@pytest.mark.parametrize(("model", "field"), sorted(STORED_CHOICES))
def test_each_stored_choice_keeps_its_value(model: str, field: str) -> None:
    choices = _field(model, field).choices
    assert choices is not None
    assert [value for value, _ in choices] == STORED_CHOICES[model, field]


@pytest.mark.parametrize(("model", "field"), sorted(STORED_DEFAULTS))
def test_each_stored_default_keeps_its_value(model: str, field: str) -> None:
    assert _field(model, field).default == STORED_DEFAULTS[model, field]


def test_every_field_with_choices_in_the_apps_is_pinned_here() -> None:
    """A new status, kind or verdict fails here until its values are pinned above."""
    with_choices = {
        (f"{model._meta.app_label}.{model.__name__}", field.name)
        for app in APPS
        for model in apps.get_app_config(app).get_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.Field) and field.choices
    }
    assert with_choices == set(STORED_CHOICES)
