"""The typed errors of ``apply``: each refusal carries a stable snake_case ``code``.

STYLE 3: illegal actions raise ``IllegalAction`` subclasses, never a sentinel. The codes
are public API (docs/errors.md). Each test names the rule the refused action breaks.
"""

from __future__ import annotations

import pickle

import pytest

from games.engine import (
    Advanced,
    GameOver,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    RuleSet,
    State,
    apply,
    legal_actions,
    resign,
)
from games.engine import actions as act
from games.engine.cards import GOLD, SILVER
from tests.engine.builders import ids, in_challenge, position

R = RuleSet()
PIANO, TOY_TRAIN, JEWELS, AUTO, CABIN = ids(
    R, ["piano", "toy_train", "jewels", "classic_auto", "cabin"]
)
DECK = ["scooter"] * 20
HAND = ["piano", "piano", "classic_auto", "silver", "cabin"]


def table(rules: RuleSet = R, **changes: object) -> State:
    """Seat 0 on turn holding HAND with a Jewels set; seat 1 has a Classic Auto set on
    top of a Toy Train set; the discard top is a Scooter."""
    options: dict[str, object] = {
        "hands": {0: HAND, 1: ["classic_auto", "gold", "piano", "piano", "piano"]},
        "stacks": {
            0: [["jewels", "jewels"]],
            1: [["toy_train", "toy_train"], ["classic_auto", "gold"]],
        },
        "discard": ["scooter"],
        "deck": DECK,
    }
    options.update(changes)
    return position(rules, **options)  # type: ignore[arg-type]


def code_of(s: State, action: int, seat: int | None = None) -> str:
    """The error code ``apply`` raises; the given state must come out unchanged."""
    before = s.version, legal_actions(s)
    with pytest.raises(IllegalAction) as err:
        apply(s, action, seat)
    assert (s.version, legal_actions(s)) == before
    return err.value.code


def defending(
    rules: RuleSet = R, demand: int = 1, played: tuple[str, ...] = ("classic_auto",)
) -> State:
    """Seat 1 must answer seat 0's challenge on its Classic Auto set."""
    return table(
        rules,
        kind="defend",
        to_act=1,
        turn=0,
        challenge=in_challenge(
            rules,
            challenger=0,
            holder=1,
            played=list(played),
            responder=1,
            kind="classic_auto",
            demand=demand,
        ),
        hands={0: HAND[1:], 1: ["classic_auto", "gold", "silver", "piano", "jewels"]},
    )


def test_an_action_from_a_seat_not_on_turn_is_refused() -> None:
    """``not_your_turn``: only the seat holding the decision may act, even with an action
    that would be legal for it."""
    s = table()
    legal = act.discard(PIANO)
    assert legal in legal_actions(s)
    with pytest.raises(NotYourTurn) as err:
        apply(s, legal, seat=2)
    assert (err.value.code, err.value.http_status) == ("not_your_turn", 409)
    assert apply(s, legal, seat=0)[0].to_act == 1


def test_a_challenger_cannot_answer_while_the_defender_must() -> None:
    """``not_your_turn``: during a challenge the responder alone decides (RULES #14)."""
    assert code_of(defending(), act.CONCEDE_ACTION, seat=0) == "not_your_turn"


def test_any_action_after_the_game_is_over_is_refused() -> None:
    """``game_over``: a finished game accepts nothing, not even a resignation."""
    s = position(R, hands={0: ["comic_books"]}, tallies=[1_000_000, 0, 0, 0])
    s, _ = apply(s, act.discard(0))
    assert s.over
    with pytest.raises(GameOver) as err:
        apply(s, act.discard(0))
    assert (err.value.code, err.value.http_status) == ("game_over", 409)
    assert code_of(s, act.discard(0), seat=1) == "game_over"
    with pytest.raises(GameOver):
        resign(s, 1)


@pytest.mark.parametrize(
    "action",
    [act.play((AUTO,)), act.CONCEDE_ACTION, act.PASS_ACTION, act.END_TURN_ACTION, act.resign(0)],
)
def test_an_answer_to_another_kind_of_decision_is_refused_on_turn(action: int) -> None:
    """``wrong_decision``: a turn is a pair, discard or challenge (RULES #20: no passing)."""
    assert code_of(table(), action) == "wrong_decision"


@pytest.mark.parametrize(
    "action",
    [act.discard(PIANO), act.pair(PIANO, PIANO), act.PASS_ACTION, act.challenge(0, (AUTO,))],
)
def test_a_turn_action_during_a_challenge_is_refused(action: int) -> None:
    """``wrong_decision``: a defender plays a card or concedes (RULES #14, #16)."""
    assert code_of(defending(), action) == "wrong_decision"


@pytest.mark.parametrize(
    "action",
    [
        act.discard(GOLD),
        act.pair(CABIN, CABIN),
        act.pair(PIANO, GOLD),
        act.pair_discard(GOLD),
        act.challenge(1, (GOLD,)),
    ],
)
def test_a_card_the_hand_does_not_hold_is_refused(action: int) -> None:
    """``card_not_in_hand``: every card an action spends must be in the hand."""
    assert code_of(table(), action) == "card_not_in_hand"


def test_a_defender_cannot_play_a_card_it_does_not_hold() -> None:
    """``card_not_in_hand`` in a challenge (RULES #14)."""
    assert code_of(defending(), act.play((CABIN,))) == "card_not_in_hand"


@pytest.mark.parametrize(
    "action",
    [
        act.pair(PIANO, AUTO),  # two different assets (RULES #7)
        act.pack(act.PAIR, SILVER, CABIN),  # a wild leading the set (RULES #8)
        act.pack(act.PAIR, CABIN),  # a single card (RULES #7)
    ],
)
def test_cards_that_do_not_make_a_set_are_refused(action: int) -> None:
    """``invalid_set``: a set is an asset with its twin or one wild (RULES #7, #8)."""
    assert code_of(table(), action) == "invalid_set"


def test_pairing_with_an_empty_discard_pile_is_refused() -> None:
    """``discard_empty``: no pile, nothing to pair with (RULES #3, #6)."""
    assert code_of(table(discard=[]), act.pair_discard(PIANO)) == "discard_empty"


def test_pairing_with_a_discard_top_that_does_not_match_is_refused() -> None:
    """``discard_mismatch``: a Piano does not pair with a Scooter (RULES #6)."""
    assert code_of(table(), act.pair_discard(PIANO)) == "discard_mismatch"


def test_a_wild_on_a_discarded_asset_is_refused_when_the_option_forbids_it() -> None:
    """``discard_mismatch`` under ``discard_pair_wild="none"`` (RULES #6)."""
    assert code_of(table(R.with_options(discard_pair_wild="none")), act.pair_discard(SILVER)) == (
        "discard_mismatch"
    )


def test_challenging_without_a_set_is_refused() -> None:
    """``no_own_set``: the challenger needs a set (RULES #10)."""
    s = table(stacks={1: [["toy_train", "toy_train"], ["classic_auto", "gold"]]})
    assert code_of(s, act.challenge(1, (AUTO,))) == "no_own_set"


def test_challenging_a_protected_bottom_set_is_refused() -> None:
    """``set_protected``: a lone bottom set is safe (RULES #11, #12)."""
    s = table(stacks={0: [["jewels", "jewels"]], 1: [["classic_auto", "gold"]]})
    assert code_of(s, act.challenge(1, (AUTO,))) == "set_protected"


def test_challenging_with_another_asset_is_refused() -> None:
    """``card_does_not_match``: open with the set's asset or a wild (RULES #13, #14)."""
    assert code_of(table(), act.challenge(1, (PIANO,))) == "card_does_not_match"


def test_answering_with_another_asset_is_refused() -> None:
    """``card_does_not_match``: answer with the set's asset or a wild (RULES #14)."""
    assert code_of(defending(), act.play((PIANO,))) == "card_does_not_match"


def test_two_cards_where_one_is_asked_are_refused() -> None:
    """``too_many_cards``: classic challenges go one card at a time (RULES #14)."""
    assert code_of(table(), act.challenge(1, (PIANO, PIANO))) == "card_does_not_match"
    assert code_of(table(), act.challenge(1, (AUTO, SILVER))) == "too_many_cards"
    assert code_of(defending(), act.play((AUTO, GOLD))) == "too_many_cards"


def test_a_single_card_against_a_penny_jar_is_refused() -> None:
    """``insufficient_weight``: a lone Penny Jar must be met with weight 2 (RULES #14,
    #27): one card of weight 1 is not enough."""
    rules = R.with_options(advanced=Advanced(penny_jar=True))
    s = defending(rules, demand=2, played=("penny_jar",))
    assert code_of(s, act.play((GOLD,))) == "insufficient_weight"
    assert act.play((AUTO, GOLD)) in legal_actions(s)


def test_a_second_from_top_challenge_is_refused_in_the_classic_game() -> None:
    """``rule_disabled``: only the top set can be challenged (RULES #11, #28 is off)."""
    s = table(hands={0: ["piano", "piano", "toy_train", "toy_train", "silver"]})
    assert code_of(s, act.challenge(1, (TOY_TRAIN, TOY_TRAIN), depth=1)) == "rule_disabled"


@pytest.mark.parametrize("action", [act.swap(1), act.move(1, act.TOP_TO_BOTTOM)])
def test_action_cards_are_refused_when_their_rule_is_off(action: int) -> None:
    """``rule_disabled``: Swap and Move exist only with ``advanced.action_cards``
    (RULES #30-32)."""
    assert code_of(table(), action) == "rule_disabled"


def test_improving_a_set_is_refused_when_the_rule_is_off() -> None:
    """``rule_disabled``: Improve a Set is an advanced rule (RULES #29)."""
    s = table(hands={0: ["jewels", "piano", "piano", "cabin", "cabin"]})
    assert code_of(s, act.improve(JEWELS)) == "rule_disabled"


def test_drafting_is_refused_without_draft_piles() -> None:
    """``rule_disabled``: a 4-seat game has no draft piles (RULES #34)."""
    assert code_of(table(), act.draft(PIANO, (0,))) == "rule_disabled"


@pytest.mark.parametrize("target", [0, 4, 7])
def test_challenging_oneself_or_an_empty_seat_is_refused(target: int) -> None:
    """``invalid_target``: challenge another seat at the table (RULES #10, #11)."""
    assert code_of(table(), act.challenge(target, (AUTO,))) == "invalid_target"


@pytest.mark.parametrize("action", [-1, 14 << 20, 15 << 20])
def test_malformed_actions_are_refused_as_malformed(action: int) -> None:
    """``malformed_action``: not a packed action of a known type and card."""
    with pytest.raises(MalformedAction) as err:
        apply(table(), action)
    assert err.value.code == "malformed_action"


def test_every_refusal_is_an_illegal_action_with_an_http_status() -> None:
    """The web layer maps ``code`` and ``http_status``: 422 for rule refusals."""
    with pytest.raises(IllegalAction) as err:
        apply(table(), act.pair_discard(PIANO))
    assert (err.value.code, err.value.http_status) == ("discard_mismatch", 422)
    assert err.value.message


def test_an_error_is_rebuilt_whole_from_its_class_and_args() -> None:
    """A task's result backend rebuilds an error from its class and args (and pickle does
    the same): the message and a code given to the error survive the trip."""
    error = IllegalAction("Pair a card you hold.", code="discard_mismatch")
    assert error.args == ("Pair a card you hold.", "discard_mismatch")
    for rebuilt in (type(error)(*error.args), pickle.loads(pickle.dumps(error))):
        assert type(rebuilt) is IllegalAction
        assert (rebuilt.message, rebuilt.code) == ("Pair a card you hold.", "discard_mismatch")
        assert str(rebuilt) == "Pair a card you hold."
    plain = NotYourTurn("Wait for your turn.")
    assert type(plain)(*plain.args).code == "not_your_turn"
