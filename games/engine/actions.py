"""Actions as packed ints (like OpenSpiel's action ids), and their JSON form.

An action is ``type << 20 | a << 16 | b << 12 | seat << 8 | extra``: two card ids
(``NO_CARD`` when unused), a seat (a challenge, Swap or Move target), and an extra byte
(challenge depth, draft pile mask, or Move direction). Ints keep ``legal_actions`` and
``apply`` allocation-light on the ladder's hot path; ``to_json``/``from_json`` give the
readable form the API and the bot protocol use.
"""

from __future__ import annotations

from typing import Any, Final

from .cards import ASSETS, EDITIONS, NO_CARD, Edition
from .errors import MalformedAction

# Action types, the top bits of a packed action. Final: mypyc (make engine) inlines them
# where a plain module name would be looked up at every use. Stored codes: never renumber.
PAIR: Final = 0
PAIR_DISCARD: Final = 1
DISCARD: Final = 2
CHALLENGE: Final = 3
DRAFT: Final = 4
IMPROVE: Final = 5
SWAP: Final = 6
MOVE: Final = 7
END_TURN: Final = 8
PLAY: Final = 9
CONCEDE: Final = 10
PASS: Final = 11
CHOOSE_MOVE: Final = 12
RESIGN: Final = 13
TYPE_NAMES = (
    "pair",
    "pair_discard",
    "discard",
    "challenge",
    "draft",
    "improve",
    "swap",
    "move",
    "end_turn",
    "play",
    "concede",
    "pass",
    "choose_move",
    "resign",
)
TYPES = {name: i for i, name in enumerate(TYPE_NAMES)}
TOP_TO_BOTTOM: Final = 0
BOTTOM_TO_TOP: Final = 1
DIRECTIONS = ("top_to_bottom", "bottom_to_top")
DEPTHS = ("top", "second")


def pack(kind: int, a: int = NO_CARD, b: int = NO_CARD, seat: int = 0, extra: int = 0) -> int:
    """Pack an action's fields into its int."""
    return (kind << 20) | (a << 16) | (b << 12) | (seat << 8) | extra


def action_type(action: int) -> int:
    """The action's type (PAIR, DISCARD, ...)."""
    return action >> 20


def unpack(action: int) -> tuple[int, int, int, int, int]:
    """(type, card a, card b, seat, extra) of a packed action."""
    return action >> 20, (action >> 16) & 15, (action >> 12) & 15, (action >> 8) & 15, action & 255


def cards_of(action: int) -> tuple[int, ...]:
    """The cards an action takes from the hand, in order."""
    a, b = (action >> 16) & 15, (action >> 12) & 15
    if a == NO_CARD:
        return ()
    return (a,) if b == NO_CARD else (a, b)


# Readable constructors, used by tests, strategies and the JSON parser.
def pair(asset: int, second: int) -> int:
    """Form a set from two hand cards: an asset and a second copy or a wild."""
    return pack(PAIR, asset, second)


def pair_discard(card: int) -> int:
    """Pair a hand card with the top of the discard pile."""
    return pack(PAIR_DISCARD, card)


def discard(card: int) -> int:
    """Discard a hand card."""
    return pack(DISCARD, card)


def challenge(target: int, cards: tuple[int, ...], depth: int = 0) -> int:
    """Challenge a seat's top (depth 0) or second-from-top (depth 1) set."""
    a, b = _two(cards)
    return pack(CHALLENGE, a, b, target, depth)


def draft(card: int, piles: tuple[int, ...]) -> int:
    """Draft a set: one hand card with the tops of these draft piles."""
    mask = 0
    for p in piles:
        mask |= 1 << p
    return pack(DRAFT, card, NO_CARD, 0, mask)


def improve(card: int) -> int:
    """Add a matching asset to your top set."""
    return pack(IMPROVE, card)


def swap(target: int) -> int:
    """Play Swap: exchange your top set with the target's top set."""
    return pack(SWAP, NO_CARD, NO_CARD, target)


def move(target: int, direction: int) -> int:
    """Play Move on the target's stack (top to bottom, or bottom to top)."""
    return pack(MOVE, NO_CARD, NO_CARD, target, direction)


def play(cards: tuple[int, ...]) -> int:
    """Play one or two cards in a challenge (to open a draft challenge, defend or counter)."""
    a, b = _two(cards)
    return pack(PLAY, a, b)


def choose_move(direction: int) -> int:
    """Choose the direction of a Move revealed in a draft pile."""
    return pack(CHOOSE_MOVE, NO_CARD, NO_CARD, 0, direction)


def resign(seat: int) -> int:
    """A resignation, as it is written in a game's action log."""
    return pack(RESIGN, NO_CARD, NO_CARD, seat)


# pack(END_TURN), pack(CONCEDE), pack(PASS), written out so that mypyc folds them
END_TURN_ACTION: Final = END_TURN << 20 | NO_CARD << 16 | NO_CARD << 12
CONCEDE_ACTION: Final = CONCEDE << 20 | NO_CARD << 16 | NO_CARD << 12
PASS_ACTION: Final = PASS << 20 | NO_CARD << 16 | NO_CARD << 12


def _two(cards: tuple[int, ...]) -> tuple[int, int]:
    if len(cards) == 1:
        return cards[0], NO_CARD
    lo, hi = sorted(cards)
    return lo, hi


# --- JSON ------------------------------------------------------------------------


def to_json(action: int, edition: Edition | str) -> dict[str, Any]:
    """The readable JSON form of an action."""
    ed = EDITIONS[edition] if isinstance(edition, str) else edition
    keys = ed.keys
    kind, a, _, seat, extra = unpack(action)
    out: dict[str, Any] = {"type": TYPE_NAMES[kind]}
    if kind in (PAIR, PLAY):
        out["cards"] = [keys[c] for c in cards_of(action)]
    elif kind in (PAIR_DISCARD, DISCARD, IMPROVE):
        out["card"] = keys[a]
    elif kind == CHALLENGE:
        out.update(target=seat, depth=DEPTHS[extra], cards=[keys[c] for c in cards_of(action)])
    elif kind == DRAFT:
        out.update(card=keys[a], piles=[p for p in range(3) if extra >> p & 1])
    elif kind == SWAP:
        out["target"] = seat
    elif kind == MOVE:
        out.update(target=seat, direction=DIRECTIONS[extra])
    elif kind == CHOOSE_MOVE:
        out["direction"] = DIRECTIONS[extra]
    elif kind == RESIGN:
        out["seat"] = seat
    return out


_FIELDS: dict[int, frozenset[str]] = {
    PAIR: frozenset({"cards"}),
    PAIR_DISCARD: frozenset({"card"}),
    DISCARD: frozenset({"card"}),
    CHALLENGE: frozenset({"target", "cards", "depth"}),
    DRAFT: frozenset({"card", "piles"}),
    IMPROVE: frozenset({"card"}),
    SWAP: frozenset({"target"}),
    MOVE: frozenset({"target", "direction"}),
    END_TURN: frozenset(),
    PLAY: frozenset({"cards"}),
    CONCEDE: frozenset(),
    PASS: frozenset(),
    CHOOSE_MOVE: frozenset({"direction"}),
    RESIGN: frozenset({"seat"}),
}
_OPTIONAL = frozenset({"depth"})


def from_json(data: Any, edition: Edition | str) -> int:
    """Parse the JSON form of an action; raises MalformedAction naming what is wrong."""
    ed = EDITIONS[edition] if isinstance(edition, str) else edition
    if not isinstance(data, dict):
        raise MalformedAction("an action must be a JSON object")
    name = data.get("type")
    if not isinstance(name, str) or name not in TYPES:
        raise MalformedAction(f"type must be one of {', '.join(TYPE_NAMES)}")
    kind = TYPES[name]
    fields = _FIELDS[kind]
    extra = set(data) - fields - {"type"}
    if extra:
        raise MalformedAction(f"unknown field {sorted(extra)[0]!r} for a {name} action")
    missing = fields - set(data) - _OPTIONAL
    if missing:
        raise MalformedAction(f"a {name} action needs {sorted(missing)[0]!r}")
    return _build(kind, data, ed)


def _build(kind: int, data: dict[str, Any], ed: Edition) -> int:
    if kind == PAIR:
        cards = _cards(data["cards"], ed, 2, 2)
        asset = min(cards)  # the asset defines the set; a wild never does (RULES #8)
        return pair(asset, max(cards)) if asset < ASSETS else pack(PAIR, cards[0], cards[1])
    if kind in (PAIR_DISCARD, DISCARD, IMPROVE):
        return pack(kind, _card(data["card"], ed))
    if kind == CHALLENGE:
        depth = data.get("depth", "top")
        if depth not in DEPTHS:
            raise MalformedAction("depth must be 'top' or 'second'")
        return challenge(
            _seat(data["target"]), _cards(data["cards"], ed, 1, 2), DEPTHS.index(depth)
        )
    if kind == DRAFT:
        piles = data["piles"]
        if not isinstance(piles, list) or not piles or len(set(map(repr, piles))) != len(piles):
            raise MalformedAction("piles must be a non-empty list of distinct pile numbers")
        if not all(type(p) is int and 0 <= p < 3 for p in piles):
            raise MalformedAction("each pile must be 0, 1 or 2")
        return draft(_card(data["card"], ed), tuple(piles))
    if kind == SWAP:
        return swap(_seat(data["target"]))
    if kind == MOVE:
        return move(_seat(data["target"]), _direction(data["direction"]))
    if kind == PLAY:
        return play(_cards(data["cards"], ed, 1, 2))
    if kind == CHOOSE_MOVE:
        return choose_move(_direction(data["direction"]))
    if kind == RESIGN:
        return resign(_seat(data["seat"]))
    return pack(kind)


def _card(key: Any, ed: Edition) -> int:
    if not isinstance(key, str):
        raise MalformedAction("a card must be given by its key, e.g. 'gold'")
    try:
        return ed.card(key).id
    except KeyError:
        raise MalformedAction(f"the {ed.key} edition has no card {key!r}") from None


def _cards(keys: Any, ed: Edition, lo: int, hi: int) -> tuple[int, ...]:
    if not isinstance(keys, list) or not lo <= len(keys) <= hi:
        raise MalformedAction(f"cards must be a list of {lo} to {hi} card keys")
    return tuple(_card(k, ed) for k in keys)


def _seat(value: Any) -> int:
    if type(value) is not int or not 0 <= value < 8:
        raise MalformedAction("a seat must be an integer from 0 to 7")
    return value


def _direction(value: Any) -> int:
    if value not in DIRECTIONS:
        raise MalformedAction("direction must be 'top_to_bottom' or 'bottom_to_top'")
    return DIRECTIONS.index(value)


def describe(action: int, edition: Edition | str) -> str:
    """A short human-readable label, e.g. 'challenge seat 2 (top) with gold'."""
    j = to_json(action, edition)
    parts = [j.pop("type")]
    for key, value in j.items():
        parts.append(f"{key}={','.join(map(str, value)) if isinstance(value, list) else value}")
    return " ".join(parts)
