"""``redeal_hidden_from(state, seat, seed)``: what a seat cannot tell from the real position.

The sampler of the search player and the never-peek tests of every built-in strategy
rest on it: no card is created or lost, the seat's observation (its own hand included)
and legal actions are unchanged, and the result depends only on what the seat knows.
"""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    GameOver,
    RuleSet,
    apply,
    legal_actions,
    new_game,
    observe,
    redeal_hidden_from,
)
from games.engine.worlds import Worlds
from tests.engine.builders import ids, key, make_set, position
from tests.engine.hidden import leak_rules, redeal_hidden
from tests.engine.strategies import Game, choose, games, seeds, states, strides
from tests.engine.test_properties import cards_in_play


@given(games(), strides, seeds)
def test_a_redeal_creates_and_loses_no_card_and_keeps_every_size(
    game: Game, stride: int, seed: int
) -> None:
    """RULES #2, 1.4: the same cards, the same hand, deck and pile sizes."""
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        seat = state.to_act
        other = redeal_hidden_from(state, seat, seed)
        assert cards_in_play(other) == cards_in_play(state)
        assert other.hands[seat] == state.hands[seat]
        assert [h.size for h in other.hands] == [h.size for h in state.hands]
        assert len(other.deck_left) == len(state.deck_left)
        assert [len(p) for p in other.piles] == [len(p) for p in state.piles]
        assert other.version == state.version
        assert other.seed == seed


@given(games(leak_rules), strides, seeds)
def test_a_redeal_changes_nothing_the_seat_observes_nor_its_legal_actions(
    game: Game, stride: int, seed: int
) -> None:
    """RULES #9, 2.8.5, 2.8.11: the seat sees the same table, hand and choices."""
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        for seat in range(game.rules.seats):
            other = redeal_hidden_from(state, seat, seed)
            assert observe(other, seat) == observe(state, seat)
            if seat == state.to_act:
                assert legal_actions(other) == legal_actions(state)


@given(games(leak_rules), strides, seeds, st.integers())
def test_a_redeal_depends_only_on_what_the_seat_knows(
    game: Game, stride: int, seed: int, shuffle: int
) -> None:
    """Two positions the seat cannot tell apart (an independent re-deal of its hidden
    cards, tests/engine/test_observe_leaks.py) re-deal to the very same state."""
    rng = Random(shuffle)
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        seat = state.to_act
        twin = redeal_hidden(state, seat, rng)
        assert redeal_hidden_from(twin, seat, seed) == redeal_hidden_from(state, seat, seed)


@given(games(), strides, seeds, seeds)
def test_a_redealt_position_plays_on_to_the_end(
    game: Game, stride: int, seed: int, choices: int
) -> None:
    """Every re-dealt position is a valid one: random-legal play from it ends the game."""
    state = next(s for n, s in enumerate(states(game)) if n == stride or s.over)
    if state.over:
        return
    other = redeal_hidden_from(state, state.to_act, seed)
    rng = Random(choices)
    for _ in range(20_000):
        if other.over:
            break
        other = apply(other, choose(other, rng))[0]
    assert other.over


def test_a_redeal_really_deals_the_hidden_cards_again() -> None:
    """Two seeds give two deals of the others' hands; the seat's own hand stays."""
    state = new_game(RuleSet.preset("2021", seats=4), seed=3)
    one, two = redeal_hidden_from(state, 1, 1), redeal_hidden_from(state, 1, 2)
    assert one.hands[1] == two.hands[1] == state.hands[1]
    assert one.hands != two.hands
    assert one.deck_left != two.deck_left


def test_a_redeal_refuses_a_finished_game_and_a_bad_seat() -> None:
    state = new_game(RuleSet.preset("2021", seats=2), seed=3)
    with pytest.raises(ValueError, match="seat"):
        redeal_hidden_from(state, 2, 1)
    rng = Random(1)
    while not state.over:
        state = apply(state, choose(state, rng))[0]
    with pytest.raises(GameOver):
        redeal_hidden_from(state, 0, 1)


def test_a_tucked_card_is_redealt_without_steering_the_other_unseen_cards() -> None:
    """RULES #9, 2.8.11: seat 0 has seen every card but three, a Scooter, a Silver and a
    Gold: one is seat 1's hand, one the deck, one tucked under seat 1's Piano, which only
    a wild fits. Of the worlds seat 0 cannot tell apart, the Scooter is seat 1's hand in
    half (the tucked card is either wild, the hand either other card); taking the first
    fitting card of the shuffled pool instead would put the Scooter there in two thirds."""
    rules = RuleSet.preset("2021", seats=2)
    hidden = ["scooter", "silver", "gold"]
    seen = Counter(position(rules).table.deck) - Counter(ids(rules, ["jewels", "piano", *hidden]))
    state = position(
        rules,
        hands={0: ["jewels"], 1: ["scooter"]},
        stacks={1: [make_set(rules, ["piano", "gold"], tucked=1, knowers=0b10, first=True)]},
        discard=[key(rules, card) for card in sorted(seen.elements())],
        deck=["silver"],
    )
    worlds = Worlds(state, 0)
    scooter = ids(rules, ["scooter"])
    in_hand = sum(worlds.sample(seed).hands[1].cards == scooter for seed in range(600))
    assert 250 <= in_hand <= 350  # 293 with these seeds; the biased choice gives about 400


def test_a_tucked_card_is_redealt_a_card_that_fits_its_set() -> None:
    """RULES #7, #9: under a Piano only a Piano or a wild can be tucked. Of the three cards
    seat 0 has not seen only the Penny Jar fits, so every world tucks it there, and leaves
    the rest of the stacks as they are."""
    rules = RuleSet.preset("2021", seats=2, advanced={"penny_jar": True})
    hidden = ["scooter", "jewels", "penny_jar"]
    seen = Counter(position(rules).table.deck) - Counter(ids(rules, ["piano"] * 3 + hidden))
    tucked = make_set(rules, ["piano", "penny_jar"], tucked=1, knowers=0b10)
    state = position(
        rules,
        hands={1: ["scooter"]},
        stacks={0: [["piano", "piano"]], 1: [tucked]},
        discard=[key(rules, card) for card in sorted(seen.elements())],
        deck=["jewels"],
    )
    for seed in range(10):
        world = Worlds(state, 0).sample(seed)
        assert world.stacks == state.stacks
        assert sorted(world.hands[1].cards + world.deck) == sorted(ids(rules, hidden[:2]))
