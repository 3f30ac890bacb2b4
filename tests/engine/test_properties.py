"""Engine invariants over random-legal playouts in every preset and option combination.

Each example plays one whole game (``strategies.playout``) or a bounded part of one, so
the ``ci`` profile (tests/conftest.py) keeps the suite fast; run with
``HYPOTHESIS_PROFILE=thorough`` for many more games.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    Advanced,
    EngineError,
    GameOver,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    RuleSet,
    State,
    apply,
    decision,
    default_action,
    legal_actions,
    new_game,
    resign,
    state_from_json,
    state_to_json,
)
from games.engine import actions as act
from games.engine.cards import ACTION_CARDS, ASSETS, NO_CARD, deck_total
from tests.engine.strategies import (
    MAX_DECISIONS,
    MAX_DECISIONS_PER_CARD,
    MAX_ROUNDS,
    Game,
    Step,
    games,
    is_resignation,
    playout,
    rule_sets,
    seeds,
    strides,
)

# Every code apply() may raise for an action outside legal_actions. Codes are public
# API (games/engine/errors.py, docs/errors.md): adding one here is a deliberate act.
REFUSAL_CODES = frozenset(
    {
        "malformed_action",
        "illegal_action",
        "game_over",
        "not_your_turn",
        "wrong_decision",
        "rule_disabled",
        "card_not_in_hand",
        "invalid_set",
        "discard_empty",
        "discard_mismatch",
        "no_own_set",
        "invalid_target",
        "set_protected",
        "rechallenge_banned",
        "card_does_not_match",
        "insufficient_weight",
        "too_many_cards",
        "pile_unavailable",
    }
)
SNAKE_CASE = re.compile(r"[a-z]+(_[a-z]+)*")

# RULES.md 1.4, by (edition family, two seats, Penny Jars in the deck).
DECK_TOTALS = {
    ("2011", False, False): 1_360_000,
    ("2011", True, False): 1_360_000,
    ("2021", False, False): 1_385_000,
    ("2021", False, True): 1_387_000,
    ("2021", True, False): 1_125_000,
    ("2021", True, True): 1_127_000,
}


def rules_1_4_total(rules: RuleSet) -> int:
    """The deck total RULES.md 1.4 gives for this rule set (Swap and Move are worth $0)."""
    family = "2011" if rules.edition == "2011" else "2021"  # the German deck mirrors 2021
    return DECK_TOTALS[family, rules.seats == 2, rules.advanced.penny_jar]


def cards_in_play(s: State) -> list[int]:
    """Every card the state holds, wherever it is, sorted."""
    cards = [*s.deck_left, *s.discard_pile, *s.removed]
    for hand in s.hands:
        cards += hand.cards
    for stack in s.stacks:
        for aset in stack:
            cards += aset.cards
    for pile in s.piles:
        cards += pile
    ch = s.challenge
    if ch is not None:  # challenge cards and a drafted set are in no stack yet
        cards += ch.played
        if ch.drafted is not None:
            cards += ch.drafted.cards
    return sorted(cards)


def as_last_round(s: State) -> State:
    """The same position in a game that ends when this round does (a quick, shared win).

    The ending is read only when a round ends (RULES #24), so the round plays out
    identically, and the finished state keeps the round's discard and draft piles.
    """
    data = state_to_json(s)
    quick = {"ending": "quick", "ending_rounds": None, "tie_policy": "shared_win"}
    data["rules"] = {**data["rules"], **quick}
    return state_from_json(data)


def redo(step: Step, state: State) -> State:
    """The step's action (or resignation) taken again, from ``state``."""
    if is_resignation(step.action):
        return resign(state, act.unpack(step.action)[3])[0]
    return apply(state, step.action)[0]


# --- 1. Conservation ---------------------------------------------------------------


@given(games(resignations=True))
def test_no_card_is_created_or_lost_at_any_step(game: Game) -> None:
    """Deck, discard, removed, hands, stacks, draft piles and an open challenge always
    hold exactly the deck (RULES #2, 1.4), resignations included."""
    deck = sorted(game.rules.deck())
    assert cards_in_play(new_game(game.rules, game.seed)) == deck
    for step in playout(game):
        assert cards_in_play(step.after) == deck, act.describe(step.action, game.rules.edition)


@given(games())
def test_every_set_is_one_asset_kind_with_wilds_and_no_action_card(game: Game) -> None:
    """RULES 1.4 invariants, #7, #8: a set holds at least one asset, all of its kind."""
    for step in playout(game):
        for stack in step.after.stacks:
            for aset in stack:
                assets = {c for c in aset.cards if c < ASSETS}
                assert assets == {aset.kind}
                assert not ACTION_CARDS & set(aset.cards)
                assert len(aset.cards) >= 2


# --- 2. Deck totals at round end --------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "penny_jar"),
    [("2011", False), ("2021", False), ("2021", True), ("de2023", False), ("de2023", True)],
)
@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_the_deck_is_worth_the_total_of_rules_1_4(
    edition: str, seats: int, penny_jar: bool
) -> None:
    """RULES 1.4: $1,360,000 / $1,385,000 / $1,387,000 / $1,125,000 / $1,127,000."""
    advanced = Advanced(penny_jar=penny_jar, action_cards=penny_jar)
    rules = RuleSet(edition=edition, seats=seats, advanced=advanced)
    assert deck_total(rules.deck(), rules.edition_data) == rules_1_4_total(rules)


@given(games())
def test_every_round_end_scores_stacks_and_leftovers_to_the_deck_total(game: Game) -> None:
    """RULES 1.4, #20, #25: at each round end the stacks (as the round_end event carries
    them) plus the discard pile, unused draft-pile cards and removed action cards are
    worth the whole deck."""
    values = game.rules.edition_data.values
    edition = game.rules.edition_data
    rounds = 0
    for step in playout(game):
        ends = [e for e in step.events if e["type"] == "round_end"]
        if not ends:
            continue
        rounds += 1
        (end,) = ends
        stacks = sum(edition.card(k).value for st in end["stacks"] for s in st for k in s["cards"])
        assert stacks == sum(end["scores"])
        final = redo(step, as_last_round(step.before))
        assert final.over
        assert not final.deck_left  # RULES #20: the round ends with the deck
        assert not any(h.size for h in final.hands)  # and every hand empty
        left = [*final.discard_pile, *final.removed, *(c for p in final.piles for c in p)]
        assert stacks + sum(values[c] for c in left) == rules_1_4_total(game.rules)
    assert rounds >= 1


# --- 3. Legal actions apply, everything else is refused ------------------------------------


def _neighbours(action: int) -> list[int]:
    """Near misses of a legal action: each packed field changed by one or set to extremes."""
    kind, a, b, seat, extra = act.unpack(action)
    out = []
    for field, value in enumerate((kind, a, b, seat, extra)):
        top = 255 if field == 4 else 15
        for new in {value - 1, value + 1, 0, top}:
            if 0 <= new <= top and new != value:
                parts = [kind, a, b, seat, extra]
                parts[field] = new
                out.append(act.pack(*parts))
    return out


packed_actions = st.builds(
    act.pack,
    st.integers(0, 15),
    st.integers(0, 15),
    st.integers(0, 15),
    st.integers(0, 15),
    st.integers(0, 255),
)
garbage_ints = st.integers(min_value=-(2**70), max_value=2**70)


def _assert_refused(state: State, action: int) -> None:
    with pytest.raises((IllegalAction, MalformedAction)) as info:
        apply(state, action)
    code = info.value.code
    assert SNAKE_CASE.fullmatch(code), code
    assert code in REFUSAL_CODES, code
    assert str(info.value)


@given(
    games(),
    strides,
    st.lists(packed_actions | garbage_ints, min_size=10, max_size=40),
)
def test_every_listed_action_applies_and_no_other_does(
    game: Game, stride: int, candidates: list[int]
) -> None:
    """Every action legal_actions lists applies without changing the state it was given;
    near misses and random packed or garbage ints are refused with a stable code."""
    for n, step in enumerate(playout(game)):
        if n % stride:
            continue
        state = step.before
        before = state_to_json(state)
        legal = legal_actions(state)
        for action in legal:
            after, events = apply(state, action)
            assert after.version == state.version + 1
            assert all(isinstance(e["type"], str) for e in events)
        unlisted = {x for a in legal for x in _neighbours(a)} | set(candidates)
        for action in sorted(unlisted - set(legal)):
            _assert_refused(state, action)
        assert state_to_json(state) == before


non_ints: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


# apply takes its action as an object in both builds (a compiled parameter typed int would
# raise TypeError, and pass a bool): these hold for the compiled engine too


@given(games(), non_ints, st.integers(min_value=0, max_value=400))
def test_non_int_actions_are_refused_as_malformed(game: Game, garbage: object, moment: int) -> None:
    """A non-int is malformed, even a float or a bool equal to a listed action."""
    state = new_game(game.rules, game.seed)
    for step in playout(game, moment):
        state = step.after
    if state.over:
        return
    for action in (garbage, float(legal_actions(state)[0])):
        with pytest.raises(MalformedAction) as info:
            apply(state, action)  # deliberately not an int
        assert info.value.code == "malformed_action"


def test_a_bool_equal_to_a_listed_action_is_malformed() -> None:
    """Regression: ``False == 0`` is the packed "pair comic books", and applied as one."""
    for seed in range(200):
        state = new_game(RuleSet(), seed)
        if 0 in legal_actions(state):  # act.pair(0, 0)
            break
    assert 0 in legal_actions(state)
    with pytest.raises(MalformedAction):
        apply(state, False)


@given(games(), st.integers(min_value=0, max_value=7), strides)
def test_actions_from_a_seat_not_on_turn_are_refused(game: Game, seat: int, stride: int) -> None:
    """STYLE 3: ``apply(state, action, seat)`` from any other seat raises not_your_turn."""
    for n, step in enumerate(playout(game)):
        state = step.before
        if n % stride or seat == state.to_act:
            continue
        with pytest.raises(NotYourTurn) as info:
            apply(state, legal_actions(state)[0], seat=seat)
        assert info.value.code == "not_your_turn"
        assert apply(state, legal_actions(state)[0], seat=state.to_act)


@given(games(resignations=True), packed_actions)
def test_every_action_after_the_game_is_refused_with_game_over(game: Game, action: int) -> None:
    """Once the game is over nothing is legal, and every action raises game_over."""
    state = new_game(game.rules, game.seed)
    for step in playout(game):
        state = step.after
    assert state.over
    assert legal_actions(state) == ()
    assert decision(state) is None
    with pytest.raises(GameOver) as info:
        apply(state, action)
    assert info.value.code == "game_over"


# --- 4. Termination ----------------------------------------------------------------------


@given(games(resignations=True))
def test_playouts_end_within_a_bounded_number_of_decisions_and_rounds(game: Game) -> None:
    """Every round ends (RULES #20) within a few decisions per card, and every game ends
    (RULES #22-24), ties and extra rounds included (RULES #23, 2.8.8)."""
    per_round = MAX_DECISIONS_PER_CARD * len(game.rules.deck())
    decisions = Counter[int]()
    state = new_game(game.rules, game.seed)
    for step in playout(game):
        decisions[step.before.round] += 1
        state = step.after
    assert state.over
    assert sum(decisions.values()) < MAX_DECISIONS
    assert state.round <= MAX_ROUNDS
    assert max(decisions.values()) <= per_round
    assert len(state.scores) in (state.round, state.round - 1)  # a resignation ends mid-round
    assert state.winners
    assert all(not state.resigned >> w & 1 for w in state.winners)


# --- 8. Determinism and the default action ---------------------------------------------------


@given(games(resignations=True))
def test_equal_states_list_equal_legal_actions_in_the_same_order(game: Game) -> None:
    """STYLE 3 (OS sorted legal actions): two runs of the same game agree step by step."""
    twin = playout(game)
    for step in playout(game):
        other = next(twin)
        assert other.before == step.before
        legal = legal_actions(step.before)
        assert legal_actions(other.before) == legal
        assert len(set(legal)) == len(legal)
        assert other.after == step.after
        assert other.events == step.events


@given(games(resignations=True))
def test_default_action_is_always_legal(game: Game) -> None:
    """default_action answers every decision legally (it plays for resigned seats)."""
    for step in playout(game):
        state = step.before
        assert default_action(state) in legal_actions(state)


@given(games(resignations=True))
def test_one_live_seat_holds_each_decision(game: Game) -> None:
    """The seat to act never resigned, and holds a card whenever it must play one: on its
    turn (RULES #20 skips empty hands) and when answering a challenge (RULES #17)."""
    for step in playout(game):
        state = step.before
        pending = decision(state)
        assert pending is not None
        assert pending.seat == state.to_act
        assert 0 <= pending.seat < game.rules.seats
        assert not state.resigned >> pending.seat & 1
        if pending.kind in ("turn", "defend", "counter", "draft_challenge"):
            assert state.hands[pending.seat].size


def test_each_action_type_without_cards_is_refused_at_a_deal_with_its_own_code() -> None:
    """The refusal says why: the wrong decision, a rule that is off, a missing set..."""
    state = new_game(RuleSet(), 7)
    codes = {}
    for kind, name in enumerate(act.TYPE_NAMES):
        with pytest.raises(EngineError) as info:
            apply(state, act.pack(kind, NO_CARD, NO_CARD))
        codes[name] = info.value.code
    assert codes == {
        "pair": "invalid_set",
        "pair_discard": "discard_mismatch",
        "discard": "illegal_action",
        "challenge": "no_own_set",
        "draft": "rule_disabled",
        "improve": "rule_disabled",
        "swap": "rule_disabled",
        "move": "rule_disabled",
        "end_turn": "wrong_decision",
        "play": "wrong_decision",
        "concede": "wrong_decision",
        "pass": "wrong_decision",
        "choose_move": "wrong_decision",
        "resign": "wrong_decision",
    }


@given(rule_sets(), seeds)
def test_new_game_deals_a_consistent_first_decision(rules: RuleSet, seed: int) -> None:
    """RULES #1, #3, #4: full hands, the discard flip, and the first player to act."""
    state = new_game(rules, seed)
    assert state.round == 1
    assert all(h.size == rules.effective_hand_size for h in state.hands)
    assert len(state.discard_pile) == (1 if rules.initial_discard_flip else 0)
    assert state.to_act == state.turn
    assert decision(state) == (state.to_act, "turn", 0)
    assert legal_actions(state)


def test_a_resignation_that_ends_the_game_mid_challenge_loses_no_card() -> None:
    """Regression: finishing the game used to drop an open challenge and its cards."""
    rules = RuleSet.preset("2021", seats=2)
    for step in playout(Game(rules, seed=3, choices=3)):
        if step.after.challenge is not None:
            break
    state = step.after
    assert state.challenge is not None
    assert state.challenge.drafted is not None
    over = resign(state, state.to_act)[0]
    assert over.over
    assert cards_in_play(over) == sorted(rules.deck())
