"""Game state as plain data: a slotted State of tuples and small ints.

To its callers a State is a value: ``play.apply`` copies it (``_copy``) and changes
only the copy. Inside, fields are tuples so a copy shares everything it did not change.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Final, NamedTuple

# where a challenge is aimed (RULES #11, #28, #35), named here too
from .depths import DEPTH_NAMES as DEPTH_NAMES
from .depths import DRAFTED as DRAFTED
from .depths import SECOND as SECOND
from .depths import TOP as TOP
from .hands import EMPTY, Hand
from .rules import RuleSet
from .table import Table, compile_rules

# Decision kinds: who must act, and why (DESIGN "Decisions").
# (Final: mypyc inlines them, see cards)
TURN: Final = 0
SECOND_ACTION: Final = 1
DEFEND: Final = 2
COUNTER: Final = 3
DRAFT_CHALLENGE: Final = 4
MOVE_CHOICE: Final = 5
OVER: Final = 6
DECISION_NAMES = (
    "turn",
    "second_action",
    "defend",
    "counter",
    "draft_challenge",
    "move_choice",
    "over",
)


class AssetSet(NamedTuple):
    """One set in a stack: its asset kind and cards.

    ``tucked`` is the index of the one card others have not seen (RULES #9, 2.8.11), or
    -1; ``knowers`` is the bitmask of seats that have seen it. ``first`` marks a set that
    landed in an empty stack, which ``bottom_protection="first_formed"`` keeps safe
    wherever it travels (RULES #12, 2.8.10). In a seat's view of a set (games.engine.view)
    a tucked card that seat has not seen reads ``HIDDEN``.
    """

    kind: int
    cards: tuple[int, ...]
    tucked: int
    knowers: int
    first: bool


HIDDEN = -1  # a card place whose card the viewing seat has not seen (never in a State)

# builds a NamedTuple without its slow Python-level __new__ (Final, like the class alias
# below: compiled, both are read from C statics, not looked up in the module's dict)
_tnew: Final = tuple.__new__
_ASSET_SET: Final = AssetSet


def asset_set(
    kind: int, cards: tuple[int, ...], tucked: int, knowers: int, first: bool
) -> AssetSet:
    """An AssetSet, built fast (the hot path makes and grows sets constantly)."""
    return _tnew(_ASSET_SET, (kind, cards, tucked, knowers, first))


def grown(aset: AssetSet, cards: tuple[int, ...]) -> AssetSet:
    """The set with more (public) cards added."""
    return _tnew(_ASSET_SET, (aset[0], aset[1] + cards, aset[2], aset[3], aset[4]))


def seen_by(aset: AssetSet, seat: int) -> AssetSet:
    """The set, now also known to ``seat`` (its new owner sees every card)."""
    return _tnew(_ASSET_SET, (aset[0], aset[1], aset[2], aset[3] | 1 << seat, aset[4]))


class Challenge(NamedTuple):
    """A challenge in progress (RULES #13-19, #27, #28, #35).

    ``holder`` owns the contested set (for a draft: the drafter, whose set is ``drafted``).
    ``played`` are the challenge cards so far, ``last`` the seat that played last (the
    winner if the responder gives up), ``demand`` the weight the next play must reach.
    """

    challenger: int
    holder: int
    depth: int
    kind: int
    played: tuple[int, ...]
    last: int
    responder: int
    demand: int
    drafted: AssetSet | None
    piles: tuple[int, ...]


class Progress(NamedTuple):
    """The game-level record, which changes only between rounds (or on a resignation)."""

    seed: int
    round: int
    dealer: int
    tallies: tuple[int, ...]
    wins: tuple[int, ...]  # round wins (RULES #24)
    scores: tuple[tuple[int, ...], ...]  # each finished round's scores
    resigned: int  # bitmask of resigned seats
    winners: tuple[int, ...]


def challenge_of(*fields: Any) -> Challenge:
    """A Challenge, built fast."""
    return _tnew(Challenge, fields)


Events = tuple[dict[str, Any], ...]
# Cons lists. Their tails are a Pile and a History again; they are typed Any because
# mypyc (make engine, docs/engine.md) crashes on recursive type aliases.
Pile = tuple[int, Any] | None  # the discard pile, top first: O(1) to push and to take
History = tuple[Events, Any] | None  # newest first: O(1) to extend in apply
NEW_ROUND: Final[Any] = ((), None)  # marker: a round was dealt, its history restarts


class State:
    """The whole game: rules and progress, and the round in progress."""

    __slots__ = (
        "table",
        "game",
        "over",
        "version",
        # round
        "deck",
        "drawn",
        "discard",
        "removed",
        "hands",
        "stacks",
        "tops",
        "piles",
        "log",
        # decision
        "turn",
        "action_no",
        "to_act",
        "kind",
        "challenge",
        "refill",
        "bans",
        "flips",
        "moves",
        # cache, never serialised
        "_legal",
    )

    table: Table
    game: Progress
    over: bool
    version: int
    deck: tuple[int, ...]  # the round's draw pile in draw order; it never changes
    drawn: int  # cards drawn from it so far
    discard: Pile
    removed: tuple[int, ...]
    hands: tuple[Hand, ...]
    stacks: tuple[tuple[AssetSet, ...], ...]
    # per seat, the kind of the top set when a challenge can reach it under positional
    # protection (two or more sets, RULES #11), else -1; kept by set_stack
    tops: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    log: History  # this round's public events, newest chunk first
    turn: int
    action_no: int
    to_act: int
    kind: int
    challenge: Challenge | None
    refill: tuple[int, ...]
    bans: tuple[tuple[int, int], ...]
    flips: tuple[int, ...]
    moves: tuple[tuple[int, int], ...]
    _legal: tuple[int, ...] | None

    def _copy(self) -> State:
        """The next version of this state, for apply to change (callers never see it).

        ``play.apply`` inlines this body: a slot added here must be added there too
        (tests/engine/test_state_copy.py checks both copy every slot).
        """
        n = State()
        n.table = self.table
        n.game = self.game
        n.over = self.over
        n.version = self.version + 1
        n.deck = self.deck
        n.drawn = self.drawn
        n.discard = self.discard
        n.removed = self.removed
        n.hands = self.hands
        n.stacks = self.stacks
        n.tops = self.tops
        n.piles = self.piles
        n.log = self.log
        n.turn = self.turn
        n.action_no = self.action_no
        n.to_act = self.to_act
        n.kind = self.kind
        n.challenge = self.challenge
        n.refill = self.refill
        n.bans = self.bans
        n.flips = self.flips
        n.moves = self.moves
        n._legal = None
        return n

    @property
    def rules(self) -> RuleSet:
        """The rule set this game is played with."""
        return self.table.rules

    @property
    def seed(self) -> int:
        """The seed every deal of this game derives from."""
        return self.game.seed

    @property
    def round(self) -> int:
        """The round in progress (1-based), or the last one once the game is over."""
        return self.game.round

    @property
    def dealer(self) -> int:
        """This round's dealer."""
        return self.game.dealer

    @property
    def tallies(self) -> tuple[int, ...]:
        """Running dollar totals by seat, over finished rounds."""
        return self.game.tallies

    @property
    def wins(self) -> tuple[int, ...]:
        """Rounds won by seat (tied round leaders all count, RULES 2.8.8)."""
        return self.game.wins

    @property
    def scores(self) -> tuple[tuple[int, ...], ...]:
        """Each finished round's dollars by seat."""
        return self.game.scores

    @property
    def resigned(self) -> int:
        """Bitmask of the seats that resigned."""
        return self.game.resigned

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game is over."""
        return self.game.winners

    @property
    def deck_left(self) -> tuple[int, ...]:
        """The cards still to draw, next first."""
        return self.deck[self.drawn :]

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """The discard pile, bottom first (its last card is the top)."""
        out = []
        node = self.discard
        while node is not None:
            out.append(node[0])
            node = node[1]
        return tuple(reversed(out))

    @property
    def history(self) -> Events:
        """This round's public events, oldest first."""
        return flatten(self.log)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        skip = ("_legal", "table", "log", "deck", "drawn")
        same = (f for f in FIELDS if f not in skip)
        return (
            self.rules == other.rules
            and all(getattr(self, f) == getattr(other, f) for f in same)
            and self.deck_left == other.deck_left
            and self.history == other.history
        )

    __hash__ = None  # type: ignore[assignment]  # states are values, but not hashable ones

    def __repr__(self) -> str:
        return (
            f"<State round={self.round} version={self.version} to_act={self.to_act} "
            f"kind={DECISION_NAMES[self.kind]} over={self.over}>"
        )


# State's fields in slot order, for __eq__: a State compiled by mypyc (make engine) has
# no __slots__ to read at run time (tests/engine/test_state_copy.py holds them equal)
FIELDS: Final = (
    "table",
    "game",
    "over",
    "version",
    "deck",
    "drawn",
    "discard",
    "removed",
    "hands",
    "stacks",
    "tops",
    "piles",
    "log",
    "turn",
    "action_no",
    "to_act",
    "kind",
    "challenge",
    "refill",
    "bans",
    "flips",
    "moves",
    "_legal",
)

# The last flattening of each recently read history, by its newest node (kept alive, so
# its id is not reused while cached). A state's history is its parent's plus one chunk:
# observing every decision, as the web layer does, then costs one tuple concatenation
# instead of a walk over the whole round. Invisible to callers; cleared when full.
_FLAT: dict[int, tuple[History, Events]] = {}
_FLAT_MAX = 256


def flatten(log: History) -> Events:
    """The events of a history log, oldest first."""
    if log is None:
        return ()
    hit = _FLAT.get(id(log))
    if hit is not None and hit[0] is log:
        return hit[1]
    events, prev = log
    hit = _FLAT.pop(id(prev), None)  # the parent's flattening is superseded by this one
    if hit is not None and hit[0] is prev:
        flat = hit[1] + events
    else:
        chunks = []
        node: History = log
        while node is not None:
            chunks.append(node[0])
            node = node[1]
        chunks.reverse()
        flat = tuple(chain.from_iterable(chunks))
    if len(_FLAT) >= _FLAT_MAX:
        _FLAT.clear()
    _FLAT[id(log)] = (log, flat)
    return flat


def blank_state(rules: RuleSet, seed: int) -> State:
    """A State with the game-level fields set and an empty round (used by new_game)."""
    s = State()
    n = rules.seats
    s.table = compile_rules(rules)
    s.game = Progress(seed, 0, 0, (0,) * n, (0,) * n, (), 0, ())
    s.version = 0
    s.deck = s.removed = ()
    s.drawn = 0
    s.discard = None
    s.hands = (EMPTY,) * n
    s.stacks = ((),) * n
    s.tops = (-1,) * n
    s.over = False
    s.piles = ()
    s.log = None
    s.turn = s.action_no = s.to_act = s.kind = 0
    s.challenge = None
    s.refill = s.bans = s.flips = s.moves = ()
    s._legal = None
    return s


def set_stack(s: State, seat: int, stack: tuple[AssetSet, ...]) -> None:
    """Replace one seat's stack (every stack change goes through here, to keep ``tops``)."""
    stacks = list(s.stacks)
    stacks[seat] = stack
    s.stacks = tuple(stacks)
    kind = stack[-1][0] if len(stack) > 1 else -1
    if s.tops[seat] != kind:
        tops = list(s.tops)
        tops[seat] = kind
        s.tops = tuple(tops)
