"""RuleSet: the documented defaults, the presets, derived values, validation and JSON.

RULES.md section 2 names every option and its default (the 2021 guide); section 3
bundles them into the ``2021``, ``2011`` and ``de2023`` presets.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from games.engine import PRESETS, Advanced, InvalidRules, RuleSet, new_game


def test_defaults_are_the_ones_rules_md_decides() -> None:
    """RULES #1-37: every default of a bare RuleSet is the Default column of section 2."""
    r = RuleSet()
    assert r.edition == "2021"  # RULES #2: the 2021 guide is the default
    assert r.max_players == 6  # RULES #5
    assert r.hand_size is None
    assert r.effective_hand_size == 5
    assert r.draft_piles is None  # RULES #34: derived from the seat count
    assert r.initial_discard_flip is True  # RULES #3
    assert r.first_player == "rotate"  # RULES #4
    assert r.discard_pair_wild == "both"  # RULES #6
    assert r.hide_tucked_wilds is True  # RULES #9
    assert r.bottom_protection == "position"  # RULES #12
    assert r.auto_yield == "empty_hand_only"  # RULES #17
    assert r.target == 1_000_000
    assert r.target_inclusive is True
    assert r.tie_policy == "extra_round"  # RULES #23
    assert r.ending == "classic"  # RULES #24
    assert r.swap_may_take_bottom_set is True  # RULES #30
    assert r.draft_challenge_requires_own_set is False  # RULES #35


def test_advanced_rules_are_each_off_by_default_with_the_en21_details() -> None:
    """RULES #26-33: each advanced rule is its own switch, off unless chosen; the
    re-challenge ban is on (EN21) and the Penny Jar weighs 2."""
    adv = RuleSet().advanced
    assert adv == Advanced()
    switches = ("hand_six", "two_actions", "improve_set", "action_cards")
    assert [getattr(adv, name) for name in switches] == [False] * 4
    assert (adv.second_set_challenge, adv.penny_jar) == (False, False)
    assert adv.no_rechallenge_after_loss is True
    assert adv.penny_jar_weight == 2


@pytest.mark.parametrize(
    ("ending", "rounds"), [("highest_after_n", 3), ("first_to_n_round_wins", 2)]
)
def test_ending_rounds_default_to_three_rounds_or_two_wins(ending: str, rounds: int) -> None:
    """RULES #24: highest after N uses N=3, first to N round wins uses N=2."""
    assert RuleSet(ending=ending).effective_ending_rounds == rounds
    assert RuleSet(ending=ending, ending_rounds=5).effective_ending_rounds == 5


def test_2021_preset_is_the_default_rule_set() -> None:
    """RULES section 3: the 2021 preset is the default."""
    assert RuleSet.preset("2021") == RuleSet() == PRESETS["2021"]


def test_2011_preset_uses_the_2011_deck_without_draft_piles() -> None:
    """RULES section 3: 2011 plays the 1.1 deck, 4 cards (5 for 2-3 players), no draft
    piles, and otherwise the same defaults as 2021."""
    r = RuleSet.preset("2011")
    assert r.edition == "2011"
    assert r.effective_hand_size == 4
    assert not RuleSet.preset("2011", seats=2).uses_draft_piles
    assert dataclasses.replace(r, edition="2021") == RuleSet()


def test_de2023_preset_drops_the_rechallenge_ban_and_allows_swapping_a_bottom_set() -> None:
    """RULES section 3, #26, #30: de2023 uses the German deck, no re-challenge ban, and
    Swap may take a lone bottom set; everything else is as 2021."""
    r = RuleSet.preset("de2023")
    assert r.edition == "de2023"
    assert r.advanced.no_rechallenge_after_loss is False
    assert r.swap_may_take_bottom_set is True
    assert r.first_player == "rotate"
    assert RuleSet.preset("de2023", seats=3).uses_draft_piles
    assert dataclasses.replace(r, edition="2021", advanced=Advanced()) == RuleSet()


def test_preset_options_keep_the_presets_other_choices() -> None:
    """RULES section 3: options given to a preset replace only themselves."""
    r = RuleSet.preset("de2023", seats=2, advanced={"two_actions": True})
    assert (r.edition, r.seats) == ("de2023", 2)
    assert r.advanced.two_actions is True
    assert r.advanced.no_rechallenge_after_loss is False


def test_unknown_preset_is_refused() -> None:
    """RULES section 3: only the 2021, 2011 and de2023 presets exist."""
    with pytest.raises(InvalidRules) as err:
        RuleSet.preset("1999")
    assert (err.value.code, err.value.field) == ("invalid_rules", "preset")


@pytest.mark.parametrize(
    ("edition", "seats", "hand_six", "size"),
    [
        ("2021", 2, False, 6),
        ("2021", 3, False, 5),
        ("2021", 4, False, 5),
        ("2021", 5, False, 5),
        ("2021", 6, False, 5),
        ("2021", 2, True, 6),
        ("2021", 3, True, 6),
        ("2021", 4, True, 6),
        ("de2023", 2, False, 6),
        ("de2023", 3, False, 5),
        ("de2023", 6, False, 5),
        ("de2023", 4, True, 6),
        ("2011", 2, False, 5),
        ("2011", 3, False, 5),
        ("2011", 4, False, 4),
        ("2011", 6, False, 4),
    ],
)
def test_hand_size_derives_from_edition_seats_and_hand_six(
    edition: str, seats: int, hand_six: bool, size: int
) -> None:
    """RULES #1, #33, 2.8.12: 5 (2p 6, 3p 5, advanced 6); 2011: 4, or 5 for 2-3 players."""
    r = RuleSet(edition=edition, seats=seats, advanced=Advanced(hand_six=hand_six))
    assert r.effective_hand_size == size


def test_explicit_hand_size_overrides_the_derived_one() -> None:
    """RULES #1: ``hand_size`` may be set outright."""
    assert RuleSet(hand_size=7).effective_hand_size == 7
    assert RuleSet(edition="2011", seats=2, hand_size=4).effective_hand_size == 4


@pytest.mark.parametrize(
    ("edition", "seats", "drafting"),
    [
        ("2021", 2, True),
        ("2021", 3, True),
        ("2021", 4, False),
        ("2021", 6, False),
        ("de2023", 2, True),
        ("de2023", 3, True),
        ("de2023", 5, False),
        ("2011", 2, False),
        ("2011", 3, False),
        ("2011", 4, False),
    ],
)
def test_draft_piles_are_on_for_two_or_three_seats_in_2021_and_german_games(
    edition: str, seats: int, drafting: bool
) -> None:
    """RULES #34, section 3: draft piles are on for 2-3 players in 2021/de2023, off in 2011."""
    assert RuleSet(edition=edition, seats=seats).uses_draft_piles is drafting


def test_draft_piles_can_be_switched_off_for_two_or_three_seats() -> None:
    """RULES #34: ``draft_piles=False`` plays a 2-3 player game without piles."""
    assert RuleSet(seats=3, draft_piles=False).uses_draft_piles is False


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"edition": "1999"}, "edition"),
        ({"seats": 1}, "seats"),
        ({"seats": 7}, "seats"),
        ({"seats": 9, "max_players": 8}, "seats"),
        ({"max_players": 5}, "max_players"),
        ({"max_players": 9}, "max_players"),
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size": 11}, "hand_size"),
        ({"first_player": "youngest"}, "first_player"),
        ({"discard_pair_wild": "always"}, "discard_pair_wild"),
        ({"auto_yield": "never"}, "auto_yield"),
        ({"bottom_protection": "none"}, "bottom_protection"),
        ({"ending": "sudden_death"}, "ending"),
        ({"tie_policy": "thumb_wrestling"}, "tie_policy"),
        ({"target": 0}, "target"),
        ({"target": 100_000_001}, "target"),
        ({"ending": "highest_after_n", "ending_rounds": 0}, "ending_rounds"),
        ({"ending": "first_to_n_round_wins", "ending_rounds": 21}, "ending_rounds"),
        ({"ending": "classic", "ending_rounds": 3}, "ending_rounds"),
        ({"ending": "quick", "ending_rounds": 1}, "ending_rounds"),
        ({"seats": 4, "draft_piles": True}, "draft_piles"),
        ({"edition": "2011", "advanced": Advanced(penny_jar=True)}, "advanced.penny_jar"),
        ({"edition": "2011", "advanced": Advanced(action_cards=True)}, "advanced.action_cards"),
        ({"advanced": Advanced(penny_jar_weight=3)}, "advanced.penny_jar_weight"),
    ],
)
def test_invalid_values_and_combinations_are_refused_naming_the_field(
    options: dict[str, Any], field: str
) -> None:
    """RULES #1-5, #22-24, #27, #34, 1.1: out-of-range values, unknown choices and
    impossible combinations raise InvalidRules naming the offending field."""
    with pytest.raises(InvalidRules) as err:
        RuleSet(**options)
    assert err.value.code == "invalid_rules"
    assert err.value.field == field


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"seats": True}, "seats"),
        ({"seats": "4"}, "seats"),
        ({"target": 1_000_000.0}, "target"),
        ({"target_inclusive": 1}, "target_inclusive"),
        ({"initial_discard_flip": "yes"}, "initial_discard_flip"),
        ({"hide_tucked_wilds": None}, "hide_tucked_wilds"),
        ({"hand_size": 5.0}, "hand_size"),
        ({"draft_piles": 1}, "draft_piles"),
        ({"ending": 3}, "ending"),
        ({"advanced": {"hand_six": True}}, "advanced"),
        ({"advanced": Advanced(hand_six=1)}, "advanced.hand_six"),  # type: ignore[arg-type]
        ({"advanced": Advanced(penny_jar_weight=True)}, "advanced.penny_jar_weight"),
    ],
)
def test_values_of_the_wrong_type_are_refused_naming_the_field(
    options: dict[str, Any], field: str
) -> None:
    """Types are strict (a bool is not an int, 1 is not a bool) so the API cannot
    smuggle in a value the engine would misread."""
    with pytest.raises(InvalidRules) as err:
        RuleSet(**options)
    assert (err.value.code, err.value.field) == ("invalid_rules", field)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seats": True}, "seats must be an integer"),
        ({"seats": "4"}, "seats has the wrong type"),
        ({"hand_size": 0}, "hand_size must be between 1 and 10"),
        ({"hand_size": 11}, "hand_size must be between 1 and 10"),
    ],
)
def test_a_refusal_says_what_the_value_must_be(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRules) as err:
        RuleSet(**options)
    assert str(err.value) == message


def test_hands_of_1_to_10_cards_are_dealt_even_at_eight_seats() -> None:
    """RULES #1, #5: the largest deal, eight hands of 10 and the discard flip (no draft
    piles beyond three seats), leaves cards in every deck to draw."""
    for edition in ("2021", "de2023"):
        for hand in (1, 10):
            rules = RuleSet.preset(edition, seats=8, max_players=8, hand_size=hand)
            assert [h.size for h in new_game(rules, 1).hands] == [hand] * 8
    assert [h.size for h in new_game(RuleSet(seats=3, hand_size=10), 1).hands] == [10] * 3


def test_seven_and_eight_seats_need_a_casual_table() -> None:
    """RULES #5: 2-6 seats; max_players up to 8 admits 7 and 8."""
    assert RuleSet(seats=7, max_players=7).seats == 7
    assert RuleSet(seats=8, max_players=8).seats == 8
    for seats in range(2, 7):
        assert RuleSet(seats=seats).seats == seats


def test_rule_sets_are_frozen_values() -> None:
    """STYLE 3: a RuleSet is one frozen, hashable value."""
    r = RuleSet()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.seats = 5  # type: ignore[misc]
    assert hash(r) == hash(RuleSet())
    assert {r: 1}[RuleSet()] == 1


def test_with_options_replaces_top_level_and_advanced_options() -> None:
    """``with_options`` returns a copy; ``advanced`` may be given as a partial dict."""
    base = RuleSet(advanced=Advanced(improve_set=True))
    r = base.with_options(seats=3, advanced={"penny_jar": True})
    assert (r.seats, r.advanced.improve_set, r.advanced.penny_jar) == (3, True, True)
    assert base.seats == 4
    assert base.advanced.penny_jar is False


def test_with_options_validates_the_result() -> None:
    """An invalid replacement is refused like a direct construction."""
    with pytest.raises(InvalidRules) as err:
        RuleSet().with_options(seats=9)
    assert err.value.field == "seats"


CUSTOM = [
    RuleSet(),
    RuleSet.preset("2011", seats=3),
    RuleSet.preset("de2023", seats=2),
    RuleSet(
        seats=8,
        max_players=8,
        hand_size=4,
        initial_discard_flip=False,
        first_player="lowest_total_starts",
        discard_pair_wild="none",
        hide_tucked_wilds=False,
        bottom_protection="first_formed",
        auto_yield="no_legal_card",
        swap_may_take_bottom_set=False,
        draft_challenge_requires_own_set=True,
        ending="first_to_n_round_wins",
        ending_rounds=3,
        target=750_000,
        target_inclusive=False,
        tie_policy="shared_win",
        advanced=Advanced(
            hand_six=True,
            two_actions=True,
            no_rechallenge_after_loss=False,
            improve_set=True,
            action_cards=True,
            second_set_challenge=True,
            penny_jar=True,
            penny_jar_weight=1,
        ),
    ),
]


@pytest.mark.parametrize("rules", CUSTOM)
def test_json_round_trip_is_exact(rules: RuleSet) -> None:
    """STYLE 3: to_json/from_json round-trip exactly, through real JSON text."""
    data = json.loads(json.dumps(rules.to_json()))
    assert RuleSet.from_json(data) == rules


def test_to_json_names_every_option() -> None:
    """Every field, advanced ones nested, appears in the JSON form."""
    data = RuleSet().to_json()
    assert set(data) == {f.name for f in dataclasses.fields(RuleSet)}
    assert set(data["advanced"]) == {f.name for f in dataclasses.fields(Advanced)}


def test_from_json_fills_missing_options_with_defaults() -> None:
    """A partial object reads over the defaults."""
    r = RuleSet.from_json({"seats": 3, "advanced": {"penny_jar": True}})
    assert r == RuleSet(seats=3, advanced=Advanced(penny_jar=True))
    assert RuleSet.from_json({}) == RuleSet()


@pytest.mark.parametrize(
    ("valid", "equal_but_wrong_type", "field"),
    [
        ({"seats": 3}, {"seats": 3.0}, "seats"),
        ({"target_inclusive": True}, {"target_inclusive": 1}, "target_inclusive"),
        ({"advanced": {"penny_jar_weight": 1}}, {"advanced": {"penny_jar_weight": True}}, ""),
    ],
)
def test_from_json_refuses_values_equal_to_valid_ones_it_has_read(
    valid: dict[str, Any], equal_but_wrong_type: dict[str, Any], field: str
) -> None:
    """from_json remembers what it parsed (it runs at every state load), by value and
    type: 3.0 == 3 and True == 1 in Python, yet neither is the integer the option takes.
    Remembered, the same rules read again are the very RuleSet read before."""
    assert RuleSet.from_json(valid) is RuleSet.from_json(dict(valid))

    with pytest.raises(InvalidRules) as err:
        RuleSet.from_json(equal_but_wrong_type)
    assert err.value.field.startswith(field or "advanced.")


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"seat": 4}, "seat"),
        ({"seats": 4, "colour": "blue"}, "colour"),
        ({"advanced": {"hand_seven": True}}, "advanced.hand_seven"),
        ([], "rules"),
        ("2021", "rules"),
        ({"advanced": ["hand_six"]}, "advanced"),
        ({"seats": 12}, "seats"),
    ],
)
def test_from_json_rejects_unknown_keys_and_malformed_input(data: Any, field: str) -> None:
    """from_json is strict: an unknown key is an error naming the key, not ignored."""
    with pytest.raises(InvalidRules) as err:
        RuleSet.from_json(data)
    assert (err.value.code, err.value.field) == ("invalid_rules", field)
