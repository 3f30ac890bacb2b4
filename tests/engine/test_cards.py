"""The card catalogue: counts and values keyed by (edition, card), and deck totals.

RULES.md section 1 is the source for every number here (1.1 the 2011 deck, 1.2 the
2021 deck, 1.3 the German deck, 1.4 the derived deck totals).
"""

from __future__ import annotations

import pytest

from games.engine import Advanced, InvalidRules, RuleSet
from games.engine.cards import (
    ASSETS,
    EDITIONS,
    GOLD,
    MOVE,
    PENNY_JAR,
    SILVER,
    SWAP,
    deck_total,
    is_asset,
    is_wild,
)

# (edition, card key, count, value in dollars, kind), exactly as RULES.md 1.1-1.3 list them
CATALOGUE = [
    # RULES 1.1: the original 2011 English edition
    ("2011", "baseball_cards", 10, 5_000, "asset"),
    ("2011", "cash_under_the_mattress", 10, 5_000, "asset"),
    ("2011", "stamp_collection", 10, 5_000, "asset"),
    ("2011", "piggy_bank", 10, 5_000, "asset"),
    ("2011", "stocks", 10, 10_000, "asset"),
    ("2011", "bank_account", 10, 10_000, "asset"),
    ("2011", "coin_collection", 10, 10_000, "asset"),
    ("2011", "jewels", 10, 15_000, "asset"),
    ("2011", "classic_auto", 10, 15_000, "asset"),
    ("2011", "home", 8, 20_000, "asset"),
    ("2011", "silver", 8, 25_000, "wild"),
    ("2011", "gold", 4, 50_000, "wild"),
    # RULES 1.2: the 2021 English edition
    ("2021", "comic_books", 10, 5_000, "asset"),
    ("2021", "piano", 10, 5_000, "asset"),
    ("2021", "toy_train", 10, 5_000, "asset"),
    ("2021", "jewels", 9, 10_000, "asset"),
    ("2021", "cash_under_the_mattress", 9, 10_000, "asset"),
    ("2021", "piggy_bank", 9, 10_000, "asset"),
    ("2021", "scooter", 9, 15_000, "asset"),
    ("2021", "sport_plane", 9, 15_000, "asset"),
    ("2021", "classic_auto", 9, 15_000, "asset"),
    ("2021", "cabin", 8, 20_000, "asset"),
    ("2021", "silver", 8, 25_000, "wild"),
    ("2021", "gold", 4, 50_000, "wild"),
    ("2021", "penny_jar", 2, 1_000, "wild"),
    ("2021", "swap", 2, 0, "action"),
    ("2021", "move", 2, 0, "action"),
    # RULES 1.3: the German edition (2023)
    ("de2023", "baseballkarten", 10, 5_000, "asset"),
    ("de2023", "muenzsammlung", 10, 5_000, "asset"),
    ("de2023", "sparschwein", 10, 5_000, "asset"),
    ("de2023", "matratzengeld", 9, 10_000, "asset"),
    ("de2023", "bankkonto", 9, 10_000, "asset"),
    ("de2023", "aktien", 9, 10_000, "asset"),
    ("de2023", "motorboot", 9, 15_000, "asset"),
    ("de2023", "juwelen", 9, 15_000, "asset"),
    ("de2023", "oldtimer", 9, 15_000, "asset"),
    ("de2023", "eigenheim", 8, 20_000, "asset"),
    ("de2023", "silber", 8, 25_000, "wild"),
    ("de2023", "gold", 4, 50_000, "wild"),
    ("de2023", "muenzenglas", 2, 1_000, "wild"),
    ("de2023", "tauschen", 2, 0, "action"),
    ("de2023", "verschieben", 2, 0, "action"),
]


@pytest.mark.parametrize(("edition", "card", "count", "value", "kind"), CATALOGUE)
def test_catalogue_holds_each_cards_count_value_and_kind_per_edition(
    edition: str, card: str, count: int, value: int, kind: str
) -> None:
    """RULES 1.1-1.3: every card's count, value and kind, keyed by (edition, card)."""
    found = EDITIONS[edition].card(card)
    assert (found.count, found.value, found.kind) == (count, value, kind)


@pytest.mark.parametrize("edition", ["2011", "2021", "de2023"])
def test_catalogue_lists_no_card_beyond_the_rules_tables(edition: str) -> None:
    """RULES 1.1-1.3: an edition holds exactly the cards its table lists, no more."""
    listed = {card for ed, card, *_ in CATALOGUE if ed == edition}
    in_box = {c.key for c in EDITIONS[edition].cards if c.count}
    assert in_box == listed


@pytest.mark.parametrize(
    ("card", "value_2011", "value_2021"),
    [
        ("jewels", 15_000, 10_000),
        ("piggy_bank", 5_000, 10_000),
        ("cash_under_the_mattress", 5_000, 10_000),
        ("classic_auto", 15_000, 15_000),
    ],
)
def test_same_card_name_carries_its_own_value_in_each_edition(
    card: str, value_2011: int, value_2021: int
) -> None:
    """RULES 1: from 2011 to 2021 Jewels go $15k -> $10k, Piggy Bank and Cash $5k -> $10k."""
    assert EDITIONS["2011"].card(card).value == value_2011
    assert EDITIONS["2021"].card(card).value == value_2021


def test_german_deck_revalues_the_2011_coin_collection_and_mattress_cash() -> None:
    """RULES 1: 2011 -> DE, Coin Collection $10k -> $5k and Cash Under the Mattress $5k -> $10k."""
    assert EDITIONS["2011"].card("coin_collection").value == 10_000
    assert EDITIONS["de2023"].card("muenzsammlung").value == 5_000
    assert EDITIONS["2011"].card("cash_under_the_mattress").value == 5_000
    assert EDITIONS["de2023"].card("matratzengeld").value == 10_000


def test_2011_edition_has_no_penny_jar_swap_or_move() -> None:
    """RULES 1.1: the 2011 box has no advanced cards, so asking for one fails."""
    for card in ("penny_jar", "swap", "move"):
        with pytest.raises(KeyError):
            EDITIONS["2011"].card(card)


@pytest.mark.parametrize("edition", ["2011", "2021", "de2023"])
def test_card_ids_mean_the_same_role_in_every_edition(edition: str) -> None:
    """RULES 1: ids 0-9 are assets in ascending value tiers, then Silver, Gold, Penny Jar,
    Swap and Move; names and values come from the edition's table."""
    cards = EDITIONS[edition].cards
    asset_values = [c.value for c in cards[:ASSETS]]
    assert asset_values == sorted(asset_values)
    assert [cards[i].kind for i in (SILVER, GOLD, PENNY_JAR, SWAP, MOVE)] == [
        "wild",
        "wild",
        "wild",
        "action",
        "action",
    ]
    assert [cards[SILVER].value, cards[GOLD].value] == [25_000, 50_000]
    assert all(is_asset(c.id) for c in cards[:ASSETS])
    assert [is_wild(i) for i in (SILVER, GOLD, PENNY_JAR, SWAP, MOVE)] == [
        True,
        True,
        True,
        False,
        False,
    ]


@pytest.mark.parametrize("edition", ["2021", "de2023"])
def test_2021_and_german_counts_follow_the_value_tiers(edition: str) -> None:
    """RULES 1: the three 10-count assets are $5k, then two 9-count groups at $10k and
    $15k, then the 8-count asset at $20k."""
    assets = EDITIONS[edition].cards[:ASSETS]
    assert [(c.count, c.value) for c in assets] == (
        [(10, 5_000)] * 3 + [(9, 10_000)] * 3 + [(9, 15_000)] * 3 + [(8, 20_000)]
    )


def _split(rules: RuleSet) -> tuple[int, int, int, int]:
    """(cards, total value, asset value, wild value) of the rule set's deck."""
    deck = rules.deck()
    values = rules.edition_data.values
    assets = sum(values[c] for c in deck if is_asset(c))
    wilds = sum(values[c] for c in deck if is_wild(c))
    return len(deck), deck_total(deck, rules.edition_data), assets, wilds


ADVANCED_CARDS = Advanced(penny_jar=True, action_cards=True)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_2011_deck_is_110_cards_worth_1_360_000_at_any_seat_count(seats: int) -> None:
    """RULES 1.4, #2: the 2011 deck keeps all 110 cards at every player count."""
    assert _split(RuleSet(edition="2011", seats=seats)) == (110, 1_360_000, 960_000, 400_000)


@pytest.mark.parametrize("edition", ["2021", "de2023"])
@pytest.mark.parametrize(
    ("seats", "advanced", "expected"),
    [
        (4, Advanced(), (104, 1_385_000, 985_000, 400_000)),
        (3, Advanced(), (104, 1_385_000, 985_000, 400_000)),
        (6, Advanced(), (104, 1_385_000, 985_000, 400_000)),
        (4, ADVANCED_CARDS, (110, 1_387_000, 985_000, 402_000)),
        (3, ADVANCED_CARDS, (110, 1_387_000, 985_000, 402_000)),
        (2, Advanced(), (93, 1_125_000, 825_000, 300_000)),
        (2, ADVANCED_CARDS, (99, 1_127_000, 825_000, 302_000)),
    ],
)
def test_2021_and_german_deck_totals_match_the_rules_table(
    edition: str, seats: int, advanced: Advanced, expected: tuple[int, int, int, int]
) -> None:
    """RULES 1.4: classic 104 / $1,385,000; with advanced cards 110 / $1,387,000;
    two players (minus 8 top assets, 2 Silver, 1 Gold) 93 / $1,125,000 or 99 / $1,127,000."""
    assert _split(RuleSet(edition=edition, seats=seats, advanced=advanced)) == expected


def test_two_player_reduction_removes_every_top_asset_two_silver_and_one_gold() -> None:
    """RULES #2: a two-player 2021 deck has no Cabin, 6 Silver and 3 Gold."""
    deck = RuleSet(seats=2).deck()
    cabin = EDITIONS["2021"].card("cabin").id
    assert (deck.count(cabin), deck.count(SILVER), deck.count(GOLD)) == (0, 6, 3)


def test_advanced_cards_enter_the_deck_each_on_its_own_switch() -> None:
    """RULES #2: the Penny Jars and the Swap/Move cards join only when their rule is on."""
    classic = RuleSet().deck()
    jars = RuleSet(advanced=Advanced(penny_jar=True)).deck()
    actions = RuleSet(advanced=Advanced(action_cards=True)).deck()
    assert (PENNY_JAR in classic, SWAP in classic, MOVE in classic) == (False, False, False)
    assert (jars.count(PENNY_JAR), SWAP in jars) == (2, False)
    assert (actions.count(SWAP), actions.count(MOVE), PENNY_JAR in actions) == (2, 2, False)
    swaps = RuleSet(advanced=Advanced(swap=True)).deck()
    moves = RuleSet(advanced=Advanced(move=True)).deck()
    assert (swaps.count(SWAP), MOVE in swaps) == (2, False)  # RULES #30-32: each on its own
    assert (moves.count(MOVE), SWAP in moves) == (2, False)


@pytest.mark.parametrize("switch", ["action_cards", "swap", "move", "penny_jar"])
def test_the_2011_edition_refuses_every_advanced_card(switch: str) -> None:
    """RULES 1.1: the 2011 edition has no Penny Jar, Swap or Move cards."""
    with pytest.raises(InvalidRules) as refused:
        RuleSet.preset("2011", advanced={switch: True})
    assert refused.value.field == f"advanced.{switch}"
