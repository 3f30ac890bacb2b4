"""The legal actions of a decision as moves made on the cards.

Every legal action the engine lists becomes one ``Move``: its words, the JSON it
submits, and what a player taps to mean it: the hand cards it plays (by key, so two
Pianos in hand are two taps) and the places it points at (the discard pile, a seat's
top or second set, draft piles: games.web.board's tokens). The page's script lights up
only what some legal move contains and shows a move's button once the taps name it
exactly, so nothing illegal can be composed; without the script, every move is a
button of its own, grouped as a player thinks of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from games.engine.cards import MOVE, SWAP
from games.web.board import DISCARD, Table, pile_token, second_token, top_token

# Moves that need no card: they are always offered with the cards' moves. A shortcut key
# plays each (docs/pages.md, "Keys").
KEYS = {"concede": "y", "pass": "l", "end_turn": "e"}


@dataclass(frozen=True, slots=True)
class Move:
    """One legal action: its label, the JSON it submits, the hand cards and tokens it is
    made of, and its shortcut key (if any)."""

    label: str
    action: str
    hand: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    key: str = ""

    @property
    def hand_attr(self) -> str:
        return " ".join(self.hand)

    @property
    def targets_attr(self) -> str:
        return " ".join(self.targets)


@dataclass(slots=True)
class MoveGroup:
    """Moves that belong together (every pair from the hand, one challenge target)."""

    title: str
    moves: list[Move] = field(default_factory=list)


def moves(table: Table, legal: list[dict[str, Any]], kind: str, seat: int) -> list[MoveGroup]:
    """The legal actions as grouped moves, in the engine's order within a group."""
    groups: dict[str, MoveGroup] = {}
    for action in legal:
        title, move = _move(table, action, kind, seat)
        groups.setdefault(title, MoveGroup(title)).moves.append(move)
    return list(groups.values())


def _json(action: dict[str, Any]) -> str:
    return json.dumps(action, separators=(",", ":"))


def _target(action: dict[str, Any]) -> str:
    if action["depth"] == "second":
        return second_token(action["target"])
    return top_token(action["target"])


def _move(table: Table, a: dict[str, Any], kind: str, seat: int) -> tuple[str, Move]:
    """(group title, move) of one action."""
    t, code = a["type"], _json(a)
    if t == "pair":
        title = _("Pair two cards from your hand")
        return title, Move(
            _("Pair %(cards)s") % {"cards": table.cards(a["cards"])}, code, tuple(a["cards"])
        )
    if t == "pair_discard":
        label = _("Pair %(card)s with the discard") % {"card": table.card(a["card"]).name}
        return _("Pair a card with the discard pile's top"), Move(
            label, code, (a["card"],), (DISCARD,)
        )
    if t == "discard":
        label = _("Discard %(card)s") % {"card": table.card(a["card"]).name}
        return _("Discard a card"), Move(label, code, (a["card"],))
    if t == "challenge":
        depth = _("top set") if a["depth"] == "top" else _("second set")
        words = {"name": table.seat(a["target"]), "depth": depth, "cards": table.cards(a["cards"])}
        title = _("Challenge %(name)s's %(depth)s") % words
        label = _("Challenge %(name)s's %(depth)s with %(cards)s") % words
        return title, Move(label, code, tuple(a["cards"]), (_target(a),))
    if t == "draft":
        piles = ", ".join(str(p + 1) for p in a["piles"])
        label = _("Draft %(card)s with pile %(piles)s") % {
            "card": table.card(a["card"]).name,
            "piles": piles,
        }
        tokens = tuple(pile_token(p) for p in a["piles"])
        return _("Draft a set from the piles"), Move(label, code, (a["card"],), tokens)
    if t == "play":
        words = {"cards": table.cards(a["cards"])}
        if kind == "draft_challenge":
            return _("Challenge the drafted set"), Move(
                _("Challenge the drafted set with %(cards)s") % words, code, tuple(a["cards"])
            )
        return _("Answer the challenge"), Move(
            _("Answer with %(cards)s") % words, code, tuple(a["cards"])
        )
    if t == "improve":
        label = _("Improve your top set with %(card)s") % {"card": table.card(a["card"]).name}
        return _("Improve your top set"), Move(label, code, (a["card"],), (top_token(seat),))
    if t == "swap":
        label = _("Swap top sets with %(name)s") % {"name": table.seat(a["target"])}
        hand = (table.card_key(SWAP),)
        return _("Play Swap"), Move(label, code, hand, (top_token(a["target"]),))
    if t in ("move", "choose_move"):
        way = _("top to bottom") if a["direction"] == "top_to_bottom" else _("bottom to top")
        if t == "choose_move":
            return _("Choose the Move's direction"), Move(way, code)
        label = _("Move %(name)s's stack: %(way)s") % {"name": table.seat(a["target"]), "way": way}
        hand = (table.card_key(MOVE),)
        return _("Play Move"), Move(label, code, hand, (top_token(a["target"]),))
    finish = {
        "concede": _("Yield"),
        "pass": _("Let it go"),
        "end_turn": _("End your turn"),
    }
    return _("Or"), Move(finish.get(t, t), code, key=KEYS.get(t, ""))
