"""``observe(state, seat)`` shows a seat what it may know, and nothing else (RULES #9, #17).

The main property re-deals every card hidden from a seat (other hands, the deck order,
face-down draft-pile cards, tucked cards it never saw) into another arrangement that
keeps every count and everything public: the seat's observation, and its legal actions
when it must act, must not change.
"""

from __future__ import annotations

import json
from random import Random

from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    RuleSet,
    legal_actions,
    new_game,
    observe,
)
from games.engine.state import DRAFTED
from tests.engine.hidden import leak_rules, redeal_hidden
from tests.engine.strategies import Game, games, playout, rule_sets, states, strides


@given(games(leak_rules), strides, st.integers())
def test_redealing_hidden_cards_changes_nothing_a_seat_observes(
    game: Game, stride: int, shuffle_seed: int
) -> None:
    """RULES #9, #17, 2.8.5, 2.8.11: other hands, deck order, face-down pile cards and
    unseen tucked cards never reach observe() (a seat's or a spectator's), nor the legal
    actions of the seat to act."""
    rng = Random(shuffle_seed)
    first = new_game(game.rules, game.seed)
    assert redeal_hidden(first, 0, rng) != first  # the re-deal really moves cards
    for n, state in enumerate(states(game)):
        if n % stride:
            continue
        for seat in [*range(game.rules.seats), None]:
            other = redeal_hidden(state, seat, rng)
            assert observe(other, seat) == observe(state, seat)
            if seat == state.to_act:
                assert legal_actions(other) == legal_actions(state)


def test_the_next_card_of_a_drafted_pile_stays_hidden_during_the_draft_challenge() -> None:
    """Regression, RULES 2.8.5: piles are flipped after the drafted set lands, so while
    the neighbour decides whether to challenge, the pile's new top is face down."""
    game = Game(RuleSet.preset("2021", seats=2), seed=0, choices=0)
    for state in states(game):
        if state.challenge is not None and state.challenge.depth == DRAFTED:
            break
    else:  # pragma: no cover
        raise AssertionError("no draft in this game")
    (pile,) = state.challenge.piles
    for seat in range(2):
        assert observe(state, seat)["draft_piles"][pile]["top"] is None
        assert observe(state, seat)["draft_piles"][pile]["count"] == len(state.piles[pile])


@given(games(rule_sets(), resignations=True), strides)
def test_observations_are_plain_json_without_seed_deck_or_other_hands(
    game: Game, stride: int
) -> None:
    """STYLE 3: observe hides other hands (sizes only), the deck order and the seed."""
    big_seed = game.seed | 1 << 60  # long enough never to appear by accident
    game = Game(game.rules, big_seed, game.choices, game.resignations)
    keys = game.rules.edition_data.keys
    for n, state in enumerate(states(game)):
        if n % stride:
            continue
        for seat in range(game.rules.seats):
            seen = observe(state, seat)
            text = json.dumps(seen)
            assert json.loads(text) == seen
            assert str(big_seed) not in text
            for field in ("seed", "deck", "hands"):  # no such field at any depth
                assert f'"{field}":' not in text
            assert seen["hand"] == [keys[c] for c in state.hands[seat].cards]
            assert seen["hand_counts"] == [h.size for h in state.hands]
            assert seen["deck_count"] == len(state.deck_left)


@given(games(rule_sets(hide_tucked_wilds=True)), strides)
def test_a_tucked_card_shows_only_to_seats_that_have_seen_it(game: Game, stride: int) -> None:
    """RULES #9, 2.8.11: others see a tucked card's set and count, never the card; its
    owner and any seat that has held the set see it."""
    for n, state in enumerate(states(game)):
        if n % stride:
            continue
        for seat in range(game.rules.seats):
            seen = observe(state, seat)["stacks"]
            for owner, stack in enumerate(state.stacks):
                for shown, aset in zip(seen[owner], stack, strict=True):
                    known = owner == seat or aset.knowers >> seat & 1
                    hidden = [j for j, c in enumerate(shown["cards"]) if c is None]
                    assert hidden == ([] if known or aset.tucked < 0 else [aset.tucked])
                    assert shown["count"] == len(aset.cards)


@given(games(rule_sets(hide_tucked_wilds=True)))
def test_the_public_history_never_names_a_tucked_card(game: Game) -> None:
    """RULES #9, 2.8.11: pair events hide the second card; a pair with a discarded asset
    hides the hand card; a wild taken from the discard is public."""
    wilds = {"silver", "silber", "gold", "penny_jar", "muenzenglas"}
    for step in playout(game):
        for event in step.events:
            if event["type"] == "pair":
                assert event["cards"][1] is None
            elif event["type"] == "pair_discard":
                hidden = event["taken"] not in wilds
                assert (event["cards"][1] is None) == hidden
