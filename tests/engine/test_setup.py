"""Setting up a round: hand size, deck, discard flip, dealer and first player, seats.

RULES #1-5 with 2.8.6 (the flipped card is never replaced), 2.8.9 (lowest total starts)
and 2.8.12 (the two-player deck and hand).
"""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from games.engine import (
    Advanced,
    InvalidRules,
    RuleSet,
    State,
    apply,
    default_action,
    legal_actions,
    new_game,
    observe,
)
from games.engine import actions as act
from games.engine.cards import ASSETS, GOLD, MOVE, PENNY_JAR, SILVER, SWAP
from games.engine.flow import shuffled_any
from tests.engine.builders import ids, key, position


def dealt_cards(s: State) -> Counter[int]:
    """Every card of the round: hands, draw pile, discard pile and draft piles."""
    cards: Counter[int] = Counter(s.deck_left)
    cards.update(s.discard_pile)
    for hand in s.hands:
        cards.update(hand.cards)
    for pile in s.piles:
        cards.update(pile)
    return cards


def next_round(rules: RuleSet, *, dealer: int, tallies: list[int], seed: int = 0) -> State:
    """The first decision of round 2, after a round 1 dealt by ``dealer`` that left
    these tallies (the last card of round 1 is discarded; every stack is empty)."""
    s = position(rules, hands={0: [key(rules, 0)]}, tallies=tallies, seed=seed)
    s.game = s.game._replace(dealer=dealer)
    s, events = apply(s, act.discard(0))
    assert [e["type"] for e in events][:2] == ["discard", "round_end"]
    assert s.round == 2
    return s


# --- RULES #1: starting hand size -----------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "size"),
    [
        (RuleSet(), 5),
        (RuleSet(seats=6), 5),
        (RuleSet(seats=3), 5),
        (RuleSet(seats=2), 6),
        (RuleSet(advanced=Advanced(hand_six=True)), 6),
        (RuleSet(seats=3, advanced=Advanced(hand_six=True)), 6),
        (RuleSet.preset("2011"), 4),
        (RuleSet.preset("2011", seats=6), 4),
        (RuleSet.preset("2011", seats=3), 5),
        (RuleSet.preset("2011", seats=2), 5),
        (RuleSet.preset("de2023"), 5),
        (RuleSet.preset("de2023", seats=2), 6),
        (RuleSet(hand_size=7), 7),
    ],
)
def test_every_seat_is_dealt_the_hand_size_of_its_edition_and_player_count(
    rules: RuleSet, size: int
) -> None:
    """RULES #1: 5 cards (2p 6, 3p 5, advanced hand six 6); 2011: 4, or 5 for 2-3 players."""
    s = new_game(rules, seed=3)
    assert [h.size for h in s.hands] == [size] * rules.seats
    assert s.history[0]["hand_size"] == size


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet.preset("2011")])
def test_hands_refill_to_the_hand_size_after_each_turn(rules: RuleSet) -> None:
    """RULES #1: a player draws back up to the hand size (5 in 2021, 4 in 2011)."""
    s = new_game(rules, seed=11)
    size = rules.effective_hand_size
    for _ in range(8):
        seat = s.to_act
        s, _ = apply(s, default_action(s))
        assert s.hands[seat].size == size


# --- RULES #2: the deck ---------------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(),
        RuleSet(seats=3),
        RuleSet(seats=2),
        RuleSet(seats=6),
        RuleSet(advanced=Advanced(penny_jar=True, action_cards=True)),
        RuleSet(seats=2, advanced=Advanced(penny_jar=True, action_cards=True)),
        RuleSet.preset("2011"),
        RuleSet.preset("2011", seats=2),
        RuleSet.preset("de2023", seats=3),
    ],
)
def test_the_round_is_dealt_from_exactly_the_rule_sets_deck(rules: RuleSet) -> None:
    """RULES #2: hands, draw pile, discard and draft piles together are the edition's
    deck for these options, card for card."""
    s = new_game(rules, seed=5)
    assert dealt_cards(s) == Counter(rules.deck())


def test_classic_2021_game_plays_without_penny_jar_swap_or_move() -> None:
    """RULES #2: 2021 classic removes the Penny Jars, Swaps and Moves."""
    cards = dealt_cards(new_game(RuleSet(), seed=1))
    assert sum(cards.values()) == 104
    assert not {c for c in cards if c in (PENNY_JAR, SWAP, MOVE)}


def test_2011_game_uses_all_110_cards_even_with_two_players() -> None:
    """RULES #2: the 2011 deck is used whole at every player count."""
    cards = dealt_cards(new_game(RuleSet.preset("2011", seats=2), seed=1))
    assert sum(cards.values()) == 110
    assert cards[ids(RuleSet.preset("2011"), ["home"])[0]] == 8


@pytest.mark.parametrize("edition", ["2021", "de2023"])
@pytest.mark.parametrize("draft_piles", [None, False])
def test_every_two_seat_2021_or_german_game_plays_the_reduced_deck_with_six_cards(
    edition: str, draft_piles: bool | None
) -> None:
    """RULES 2.8.12: the two-player reduction (no top asset, 2 fewer Silver, 1 fewer
    Gold) and the 6-card hand apply with or without draft piles."""
    rules = RuleSet(edition=edition, seats=2, draft_piles=draft_piles)
    s = new_game(rules, seed=2)
    cards = dealt_cards(s)
    assert sum(cards.values()) == 93
    top_asset = ASSETS - 1  # Cabin / Eigenheim
    assert (cards[top_asset], cards[SILVER], cards[GOLD]) == (0, 6, 3)
    assert [h.size for h in s.hands] == [6, 6]
    assert bool(s.piles) is (draft_piles is None)


# --- RULES #3: the discard pile -------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(seats=2),
        RuleSet(seats=3),
        RuleSet(),
        RuleSet(seats=6),
        RuleSet.preset("2011", seats=2),
        RuleSet.preset("de2023", seats=3),
    ],
)
def test_one_card_is_flipped_onto_the_discard_pile_at_every_player_count(
    rules: RuleSet,
) -> None:
    """RULES #3: flip one card at every player count, draft-pile games included."""
    s = new_game(rules, seed=9)
    assert len(s.discard_pile) == 1
    start = s.history[0]
    assert start["discard"] == [key(rules, s.discard_pile[0])]


def test_without_the_initial_flip_the_discard_pile_starts_empty() -> None:
    """RULES #3: ``initial_discard_flip=False`` starts the pile at the first discard."""
    flipped = new_game(RuleSet(), seed=9)
    s = new_game(RuleSet(initial_discard_flip=False), seed=9)
    assert s.discard_pile == ()
    assert s.history[0]["discard"] == []
    assert len(s.deck_left) == len(flipped.deck_left) + 1
    assert not [a for a in legal_actions(s) if act.action_type(a) == act.PAIR_DISCARD]


def test_an_emptied_discard_pile_is_never_refilled_from_the_deck() -> None:
    """RULES #3: taking the only discard card leaves the pile empty; the deck only refills
    the hand."""
    rules = RuleSet()
    piano, jewels = ids(rules, ["piano", "jewels"])
    s = position(
        rules,
        hands={0: ["piano", "cabin", "cabin", "scooter", "toy_train"], 1: ["piano"] * 5},
        discard=["piano"],
        deck=["jewels"] * 10,
    )
    s, _ = apply(s, act.pair_discard(piano))
    assert s.discard_pile == ()
    assert len(s.deck_left) == 9  # one card refilled seat 0's hand, none went to the pile
    assert s.hands[0].counts[jewels] == 1
    assert act.pair_discard(piano) not in legal_actions(s)


def test_a_flipped_action_card_stays_on_the_discard_pile() -> None:
    """RULES #3, 2.8.6: the card flipped onto the discard pile is never replaced, even
    a Swap or Move."""
    rules = RuleSet(advanced=Advanced(action_cards=True))
    seed = next(
        seed for seed in range(1_000) if new_game(rules, seed).discard_pile[0] in (SWAP, MOVE)
    )
    s = new_game(rules, seed)
    assert len(s.discard_pile) == 1
    assert s.discard_pile[0] in (SWAP, MOVE)


# --- RULES #4: dealer and first player ------------------------------------------------


def test_round_one_dealer_is_drawn_from_the_seed_and_the_next_seat_starts() -> None:
    """RULES #4: a seeded random dealer in round 1; the player after the dealer starts."""
    dealers = set()
    for seed in range(40):
        s = new_game(RuleSet(), seed)
        assert new_game(RuleSet(), seed).dealer == s.dealer  # the seed decides
        assert s.turn == s.to_act == (s.dealer + 1) % 4
        assert s.history[0]["dealer"] == s.dealer
        assert s.history[0]["first"] == s.turn
        dealers.add(s.dealer)
    assert dealers == {0, 1, 2, 3}


@pytest.mark.parametrize(("dealer", "first"), [(0, 2), (1, 3), (2, 0), (3, 1)])
def test_dealer_moves_one_seat_each_round_and_the_seat_after_starts(
    dealer: int, first: int
) -> None:
    """RULES #4: ``rotate`` (default): round 2's dealer is the next seat, and the seat
    after the new dealer starts."""
    s = next_round(RuleSet(), dealer=dealer, tallies=[0, 0, 0, 0])
    assert s.dealer == (dealer + 1) % 4
    assert s.turn == first
    assert s.history[0]["first"] == first


def test_dealer_rotation_carries_over_a_whole_played_round() -> None:
    """RULES #4: after a round played to its end, the dealer and the first seat move on."""
    s = new_game(RuleSet(seats=3, draft_piles=False), seed=21)
    dealer = s.dealer
    while s.round == 1:
        s, _ = apply(s, default_action(s))
    assert (s.dealer, s.turn) == ((dealer + 1) % 3, (dealer + 2) % 3)


@pytest.mark.parametrize(
    ("tallies", "first"),
    [
        ([50_000, 10_000, 30_000, 40_000], 1),  # a single lowest tally
        ([50_000, 10_000, 30_000, 10_000], 3),  # tie 1/3: turn order from seat 2 reaches 3
        ([10_000, 10_000, 30_000, 40_000], 0),  # tie 0/1: from seat 2 the order is 2,3,0,1
        ([30_000, 30_000, 30_000, 30_000], 2),  # all tied: the seat rotation would choose
    ],
)
def test_lowest_total_starts_later_rounds_with_ties_broken_in_turn_order(
    tallies: list[int], first: int
) -> None:
    """RULES #4 ``lowest_total_starts``, 2.8.9: the lowest tally starts round 2; a tie
    goes to the first tied seat in turn order from the seat rotation would choose (seat 2
    here: the dealer moves from 0 to 1)."""
    rules = RuleSet(first_player="lowest_total_starts")
    s = next_round(rules, dealer=0, tallies=tallies)
    assert s.dealer == 1  # the dealer still rotates
    assert s.turn == first


def test_lowest_total_starts_round_one_like_rotate() -> None:
    """RULES #4, 2.8.9: every tally is 0 in round 1, so the seat after the dealer starts."""
    for seed in range(10):
        s = new_game(RuleSet(first_player="lowest_total_starts"), seed)
        assert s.turn == (s.dealer + 1) % 4


def test_random_each_round_draws_the_first_player_from_the_seed() -> None:
    """RULES #4 ``random_each_round``: any seat may start any round, decided by the seed
    alone (the dealer still rotates)."""
    rules = RuleSet(first_player="random_each_round")
    firsts = [new_game(rules, seed).turn for seed in range(40)]
    assert set(firsts) == {0, 1, 2, 3}
    assert [new_game(rules, seed).turn for seed in range(40)] == firsts
    off_rotation = [
        seed for seed in range(40) if firsts[seed] != (new_game(rules, seed).dealer + 1) % 4
    ]
    assert off_rotation
    later = {next_round(rules, dealer=0, tallies=[0] * 4, seed=seed).turn for seed in range(40)}
    assert later == {0, 1, 2, 3}
    assert next_round(rules, dealer=0, tallies=[0] * 4, seed=3).dealer == 1


# --- RULES #5: player count -----------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_two_to_six_seats_can_play(seats: int) -> None:
    """RULES #5: 2-6 players by default."""
    s = new_game(RuleSet(seats=seats), seed=1)
    assert len(s.hands) == len(s.stacks) == seats


def test_seven_seats_are_refused_unless_the_table_allows_up_to_eight() -> None:
    """RULES #5: reject 7+ in ranked play; ``max_players`` up to 8 for casual tables."""
    for seats in (7, 8):
        with pytest.raises(InvalidRules) as err:
            RuleSet(seats=seats)
        assert (err.value.code, err.value.field) == ("invalid_rules", "seats")
    s = new_game(RuleSet(seats=8, max_players=8), seed=1)
    assert [h.size for h in s.hands] == [5] * 8
    assert sum(dealt_cards(s).values()) == 104


def test_any_number_of_cards_shuffles_two_into_either_order() -> None:
    """``shuffled_any``: no card or one stays as it is, two or more come in a random order,
    two cards in each order for some seed."""
    assert shuffled_any([], Random(1)) == []
    assert shuffled_any((GOLD,), Random(1)) == [GOLD]
    orders = {tuple(shuffled_any((GOLD, SILVER), Random(seed))) for seed in range(20)}
    assert orders == {(GOLD, SILVER), (SILVER, GOLD)}
    three = {tuple(shuffled_any([GOLD, SILVER, SWAP], Random(seed))) for seed in range(40)}
    assert len(three) == 6


def test_a_game_is_dealt_from_any_seed_from_0_to_2_to_the_63rd_minus_1() -> None:
    rules = RuleSet.preset("2021", seats=2)
    for seed in (0, 2**63 - 1):
        assert new_game(rules, seed).game.seed == seed
    for bad in (-1, 2**63, 2**64 - 1, True, 7.0, "7"):
        with pytest.raises(ValueError, match=r"^seed must be") as refused:
            new_game(rules, bad)
        assert str(refused.value) == "seed must be an integer from 0 to 2**63 - 1"


def test_a_new_game_is_not_over_and_says_false() -> None:
    """The observation's ``over`` is a JSON boolean from the deal on, never null."""
    state = new_game(RuleSet.preset("2021", seats=3), 4)
    assert state.over is False
    assert observe(state, 0)["over"] is False
