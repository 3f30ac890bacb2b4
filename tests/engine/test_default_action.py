"""``default_action``'s policy: the move made for a seat that cannot or will not choose
(the autopilot's fallback, a resigned seat, a missed deadline, a webhook's strike).

At a turn it discards the cheapest card of the hand, as its docstring says: the safe
answer gives away as little as it can. Ties go to the lower card id, so the choice is
the same every time. Positions are built exactly with ``tests.engine.builders``.
"""

from __future__ import annotations

import pytest

from games.engine import RuleSet, apply, default_action, legal_actions
from games.engine import actions as act
from games.engine.state import TURN
from tests.engine.builders import ids, key, position

BASE = RuleSet.preset("2021")
ADVANCED = RuleSet.preset("2021", advanced={"penny_jar": True, "action_cards": True})


def discarded(rules: RuleSet, hand: list[str]) -> str:
    """The card key ``default_action`` discards from ``hand`` at seat 0's turn."""
    s = position(rules, hands={0: hand}, deck=["cabin"] * 20, to_act=0, kind="turn")
    assert s.kind == TURN
    action = default_action(s)
    assert act.action_type(action) == act.DISCARD
    assert action in legal_actions(s)  # the safe answer always applies
    apply(s, action)
    (card,) = act.cards_of(action)
    return key(rules, card)


@pytest.mark.parametrize(
    ("hand", "cheapest"),
    [
        (["gold", "cabin", "jewels", "piano"], "piano"),  # $50,000 ... $5,000
        (["piano", "gold"], "piano"),  # the cheapest first in the hand
        (["gold", "silver", "classic_auto"], "classic_auto"),  # wilds are dear
        (["cabin", "scooter", "piggy_bank"], "piggy_bank"),  # $20,000, $15,000, $10,000
        (["sport_plane", "cabin"], "sport_plane"),
    ],
)
def test_it_discards_the_cheapest_card_of_the_hand(hand: list[str], cheapest: str) -> None:
    assert discarded(BASE, hand) == cheapest


def test_it_never_discards_the_dearest_card() -> None:
    hand = ["gold", "silver", "cabin", "toy_train"]
    values = dict(zip(BASE.edition_data.keys, BASE.edition_data.values, strict=True))

    card = discarded(BASE, hand)

    assert values[card] == min(values[c] for c in hand) == 5_000
    assert card != "gold"


def test_ties_in_value_go_to_the_lower_card_id() -> None:
    # comic books, piano and toy train are each worth $5,000
    hand = ["toy_train", "piano", "comic_books", "gold"]
    lowest = min(ids(BASE, ["toy_train", "piano", "comic_books"]))

    assert discarded(BASE, hand) == key(BASE, lowest) == "comic_books"


def test_action_cards_worth_nothing_and_the_penny_jar_go_first() -> None:
    assert discarded(ADVANCED, ["gold", "piano", "penny_jar"]) == "penny_jar"  # $1,000
    assert discarded(ADVANCED, ["gold", "penny_jar", "swap"]) == "swap"  # $0
