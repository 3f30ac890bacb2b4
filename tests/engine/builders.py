"""Build exact engine positions in plain Python, by card key, for scenario tests.

    s = position(RuleSet(), hands={0: ["piano", "gold"], 1: ["piano"]},
                 stacks={1: [["toy_train", "toy_train"], ["piano", "piano"]]},
                 discard=["jewels"], deck=["cabin"] * 20, to_act=0)

Everything not given is empty. ``stacks`` lists each seat's sets bottom first; a set is
its card keys (the first card is the asset that shows). The state is consistent for the
engine (``tops`` and caches are derived) but not necessarily reachable by play, and its
cards need not add up to a deck: conservation is checked by the property tests instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.engine import RuleSet, State
from games.engine.cards import ASSETS
from games.engine.hands import hand_of
from games.engine.state import (
    DECISION_NAMES,
    AssetSet,
    Challenge,
    asset_set,
    blank_state,
    challenge_of,
    set_stack,
)

Cards = Sequence[str]


def ids(rules: RuleSet, keys: Iterable[str]) -> tuple[int, ...]:
    """Card ids of card keys in this edition."""
    edition = rules.edition_data
    return tuple(edition.card(k).id for k in keys)


def key(rules: RuleSet, card: int) -> str:
    """The key of a card id in this edition."""
    return rules.edition_data.keys[card]


def make_set(
    rules: RuleSet, cards: Cards, *, tucked: int = -1, knowers: int = 0, first: bool = False
) -> AssetSet:
    """A set from card keys; its kind is its first asset."""
    card_ids = ids(rules, cards)
    kind = next(c for c in card_ids if c < ASSETS)
    return asset_set(kind, card_ids, tucked, knowers, first)


def position(
    rules: RuleSet,
    *,
    hands: Mapping[int, Cards] | None = None,
    stacks: Mapping[int, Sequence[Cards | AssetSet]] | None = None,
    discard: Cards = (),
    deck: Cards = (),
    piles: Sequence[Cards] | None = None,
    to_act: int = 0,
    kind: str = "turn",
    turn: int | None = None,
    action_no: int = 1,
    challenge: Challenge | None = None,
    bans: Iterable[tuple[int, int]] = (),
    tallies: Sequence[int] | None = None,
    round_no: int = 1,
    seed: int = 0,
) -> State:
    """A State with exactly these cards where they are said to be."""
    s = blank_state(rules, seed)
    n = rules.seats
    s.game = s.game._replace(round=round_no, tallies=tuple(tallies) if tallies else (0,) * n)
    s.hands = tuple(hand_of(ids(rules, (hands or {}).get(i, ()))) for i in range(n))
    for seat, sets in (stacks or {}).items():
        built = tuple(
            st if isinstance(st, AssetSet) else make_set(rules, st, first=(j == 0))
            for j, st in enumerate(sets)
        )
        set_stack(s, seat, built)
    s.discard = None
    for card in ids(rules, discard):
        s.discard = (card, s.discard)
    s.deck = ids(rules, deck)
    s.drawn = 0
    s.piles = tuple(ids(rules, p) for p in piles) if piles is not None else ()
    s.to_act = to_act
    s.turn = to_act if turn is None else turn
    s.kind = DECISION_NAMES.index(kind)
    s.action_no = action_no
    s.challenge = challenge
    s.bans = tuple(bans)
    s.log = ((), None)
    return s


def in_challenge(
    rules: RuleSet,
    *,
    challenger: int,
    holder: int,
    played: Cards,
    responder: int,
    kind: str,
    depth: int = 0,
    demand: int = 1,
    last: int | None = None,
    drafted: Cards | None = None,
    piles: tuple[int, ...] = (),
) -> Challenge:
    """A challenge in progress, for positions in the middle of one."""
    return challenge_of(
        challenger,
        holder,
        depth,
        ids(rules, [kind])[0],
        ids(rules, played),
        challenger if last is None else last,
        responder,
        demand,
        None if drafted is None else make_set(rules, drafted),
        piles,
    )
