"""``observe(state, seat)`` shows a seat what it may know, and nothing else (RULES #9, #17).

The main property re-deals every card hidden from a seat (other hands, the deck order,
face-down draft-pile cards, tucked cards it never saw) into another arrangement that
keeps every count and everything public: the seat's observation, and its legal actions
when it must act, must not change.
"""

from __future__ import annotations

import json
from random import Random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    RuleSet,
    State,
    legal_actions,
    new_game,
    observe,
    state_from_json,
    state_to_json,
)
from games.engine.cards import PENNY_JAR, SILVER
from games.engine.state import DRAFTED
from tests.engine.strategies import Game, games, playout, rule_sets, states, strides

# RULES #17: under auto_yield="no_legal_card" prompts deliberately depend on hands, so the
# invariance is stated for the default, which asks whoever holds a card.
leak_rules = rule_sets(auto_yield="empty_hand_only")


def face_down_piles(data: dict[str, Any]) -> set[int]:
    """Draft piles whose top is face down: used by a draft not yet flipped (RULES 2.8.5)."""
    down = set(data["flips"])
    ch = data["challenge"]
    if ch is not None and ch[2] == DRAFTED:
        down |= set(ch[9])
    return down


def redeal_hidden(state: State, seat: int | None, rng: Random) -> State:
    """The state with the cards hidden from ``seat`` (None: a spectator) shuffled.

    Every count stays, and so does everything ``seat`` may know. A tucked card only
    trades places with a card it could be, an asset of its set's kind or a wild (RULES
    #7, #9), so the re-dealt position is one the seat cannot tell from the real one.
    """
    data = state_to_json(state)
    bit = 0 if seat is None else 1 << seat  # a spectator has seen no tucked card
    free: list[tuple[list[int], int]] = []  # hidden places any card may take
    deck = data["deck"]
    free += [(deck, i) for i in range(data["drawn"], len(deck))]
    for other, hand in enumerate(data["hands"]):
        if other != seat:
            free += [(hand, i) for i in range(len(hand))]
    down = face_down_piles(data)
    for p, pile in enumerate(data["piles"]):
        free += [(pile, i) for i in range(len(pile) if p in down else len(pile) - 1)]
    cards = [where[i] for where, i in free]
    rng.shuffle(cards)
    for (where, i), card in zip(free, cards, strict=True):
        where[i] = card
    tucked = [  # a tucked place, and the kind of the set its card must fit
        (aset[1], aset[2], aset[0])
        for owner, stack in enumerate(data["stacks"])
        if owner != seat
        for aset in stack
        if aset[2] >= 0 and not aset[3] & bit
    ]
    places: list[tuple[list[int], int, int | None]] = [(w, i, None) for w, i in free]
    places += tucked
    for where, i, kind in rng.sample(tucked, len(tucked)):
        swaps = [
            (w, j)
            for w, j, other_kind in places
            if _fits(w[j], kind) and (other_kind is None or _fits(where[i], other_kind))
        ]
        w, j = rng.choice(swaps)  # never empty: the place itself fits
        where[i], w[j] = w[j], where[i]
    return state_from_json(data)


def _fits(card: int, kind: int) -> bool:
    return card == kind or SILVER <= card <= PENNY_JAR


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
