"""The card catalogue: every edition's cards as data keyed by (edition, card).

Cards are small ints inside the engine. The same id means the same *role* in every
edition (ids 0-9 are the ten assets in ascending value tiers, then Silver, Gold, Penny
Jar, Swap, Move), while names, counts and values come from the edition's table: the
same name can carry a different value in another edition (RULES.md section 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Final: mypyc (make engine) inlines these instead of looking them up at each use
ASSETS: Final = 10
SILVER: Final = 10
GOLD: Final = 11
PENNY_JAR: Final = 12
SWAP: Final = 13
MOVE: Final = 14
KINDS: Final = 15
NO_CARD: Final = 15  # "no card" in packed actions

WILDS = frozenset((SILVER, GOLD, PENNY_JAR))
ACTION_CARDS = frozenset((SWAP, MOVE))


def is_asset(card: int) -> bool:
    """Whether the card is one of the ten assets."""
    return card < ASSETS


def is_wild(card: int) -> bool:
    """Whether the card is Silver, Gold or the Penny Jar."""
    return SILVER <= card <= PENNY_JAR


@dataclass(frozen=True, slots=True)
class Card:
    """One card of an edition: its stable key, printed name, copies in the box and value."""

    id: int
    key: str
    name: str
    count: int
    value: int

    @property
    def kind(self) -> str:
        """'asset', 'wild' or 'action'."""
        if self.id < ASSETS:
            return "asset"
        return "wild" if self.id <= PENNY_JAR else "action"


@dataclass(frozen=True, slots=True)
class Edition:
    """A printed edition: its cards by id, and lookups by key."""

    key: str
    name: str
    cards: tuple[Card, ...]
    two_player_removed: tuple[tuple[int, int], ...]  # (card id, copies removed), RULES #2

    @property
    def keys(self) -> tuple[str, ...]:
        """Card keys by id."""
        return tuple(c.key for c in self.cards)

    @property
    def values(self) -> tuple[int, ...]:
        """Card values in dollars by id."""
        return tuple(c.value for c in self.cards)

    def card(self, key: str) -> Card:
        """The card with this key; KeyError if the edition has no such card."""
        for c in self.cards:
            if c.key == key and c.count:
                return c
        raise KeyError(key)

    def deck(
        self, *, penny_jar: bool, swap: bool, move: bool, two_players: bool
    ) -> tuple[int, ...]:
        """The unshuffled deck for these options (RULES #2, 2.8.12), as card ids: Swap and
        Move each on its own switch (RULES #30-32)."""
        counts = [c.count for c in self.cards]
        if not penny_jar:
            counts[PENNY_JAR] = 0
        if not swap:
            counts[SWAP] = 0
        if not move:
            counts[MOVE] = 0
        if two_players:
            for card, removed in self.two_player_removed:
                counts[card] -= removed
        return tuple(card for card, n in enumerate(counts) for _ in range(n))


def _edition(
    key: str, name: str, rows: list[tuple[str, str, int, int]], removed: tuple[tuple[int, int], ...]
) -> Edition:
    cards = tuple(Card(i, k, n, count, value) for i, (k, n, count, value) in enumerate(rows))
    assert len(cards) == KINDS
    return Edition(key, name, cards, removed)


# RULES.md 1.1: the original 2011 English edition, 110 cards, no advanced cards.
EDITION_2011 = _edition(
    "2011",
    "Original English edition (2011)",
    [
        ("baseball_cards", "Baseball Cards", 10, 5_000),
        ("cash_under_the_mattress", "Cash Under the Mattress", 10, 5_000),
        ("stamp_collection", "Stamp Collection", 10, 5_000),
        ("piggy_bank", "Piggy Bank", 10, 5_000),
        ("stocks", "Stocks", 10, 10_000),
        ("bank_account", "Bank Account", 10, 10_000),
        ("coin_collection", "Coin Collection", 10, 10_000),
        ("jewels", "Jewels", 10, 15_000),
        ("classic_auto", "Classic Auto", 10, 15_000),
        ("home", "Home", 8, 20_000),
        ("silver", "Silver", 8, 25_000),
        ("gold", "Gold", 4, 50_000),
        ("penny_jar", "Penny Jar", 0, 1_000),
        ("swap", "Swap", 0, 0),
        ("move", "Move", 0, 0),
    ],
    (),
)

# RULES.md 1.2: the 2021 English edition (104 classic + 6 advanced cards).
EDITION_2021 = _edition(
    "2021",
    "English edition (2021)",
    [
        ("comic_books", "Comic Books", 10, 5_000),
        ("piano", "Piano", 10, 5_000),
        ("toy_train", "Toy Train", 10, 5_000),
        ("jewels", "Jewels", 9, 10_000),
        ("cash_under_the_mattress", "Cash under the Mattress", 9, 10_000),
        ("piggy_bank", "Piggy Bank", 9, 10_000),
        ("scooter", "Scooter", 9, 15_000),
        ("sport_plane", "Sport Plane", 9, 15_000),
        ("classic_auto", "Classic Auto", 9, 15_000),
        ("cabin", "Cabin", 8, 20_000),
        ("silver", "Silver", 8, 25_000),
        ("gold", "Gold", 4, 50_000),
        ("penny_jar", "Penny Jar", 2, 1_000),
        ("swap", "Swap", 2, 0),
        ("move", "Move", 2, 0),
    ],
    ((9, 8), (SILVER, 2), (GOLD, 1)),  # EN21 2-player changes: all Cabins, 2 Silver, 1 Gold
)

# RULES.md 1.3: the German edition (2023); asset values inferred (medium confidence).
EDITION_DE2023 = _edition(
    "de2023",
    "Deutsche Ausgabe (2023)",
    [
        ("baseballkarten", "Baseballkarten", 10, 5_000),
        ("muenzsammlung", "Münzsammlung", 10, 5_000),
        ("sparschwein", "Sparschwein", 10, 5_000),
        ("matratzengeld", "Matratzengeld", 9, 10_000),
        ("bankkonto", "Bankkonto", 9, 10_000),
        ("aktien", "Aktien", 9, 10_000),
        ("motorboot", "Motorboot", 9, 15_000),
        ("juwelen", "Juwelen", 9, 15_000),
        ("oldtimer", "Oldtimer", 9, 15_000),
        ("eigenheim", "Eigenheim", 8, 20_000),
        ("silber", "Silber", 8, 25_000),
        ("gold", "Gold", 4, 50_000),
        ("muenzenglas", "Münzenglas", 2, 1_000),
        ("tauschen", "Tauschen", 2, 0),
        ("verschieben", "Verschieben", 2, 0),
    ],
    ((9, 8), (SILVER, 2), (GOLD, 1)),  # DE 2-player changes mirror EN21
)

EDITIONS: dict[str, Edition] = {e.key: e for e in (EDITION_2021, EDITION_2011, EDITION_DE2023)}


def deck_total(deck: tuple[int, ...], edition: Edition) -> int:
    """The dollar value of a collection of cards."""
    values = edition.values
    return sum(values[c] for c in deck)
