"""The table as drawn: an observation's cards, seats, stacks and piles, ready to render.

Pure presentation over what games.selectors already gives a viewer (``observe`` for
their seat): nothing here reads the database or the engine's state, so nothing here can
show more than the observation holds. Card keys become the edition's printed names,
values and pictures (games.engine.cards, games.web.cardart), seats become player names,
and every place a move can point at (the discard pile, a seat's top set, a draft pile)
gets a *token* that the moves name (games.web.moves) and the page's script lights up.
The words of actions are in games.web.moves, of events and results in games.web.story.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from cya_site.templatetags.pages import format_dollars
from games.engine.cards import EDITIONS, Card, Edition
from games.web.cardart import tier

BOT_PREFIX = "bot."
DISCARD = "discard"


def top_token(seat: int) -> str:
    """The token of a seat's top set (challenge, improve, swap, move point at it)."""
    return f"top-{seat}"


def second_token(seat: int) -> str:
    """The token of a seat's second set from the top (RULES #28)."""
    return f"second-{seat}"


def pile_token(pile: int) -> str:
    """The token of a draft pile (RULES #34)."""
    return f"pile-{pile}"


@dataclass(frozen=True, slots=True)
class CardView:
    """One card as drawn: its key (the sprite's symbol), printed name and value, kind
    (asset, wild, action; ``hidden`` face down) and tier (its colours)."""

    key: str | None
    name: str
    value: str
    kind: str
    tier: str

    @property
    def symbol(self) -> str:
        return self.key or "back"


@dataclass(frozen=True, slots=True)
class SetView:
    """A set in a stack: its asset, cards (face-down ones hidden), the value known, its
    token when a move can point at it."""

    name: str
    face: CardView
    cards: list[CardView]
    count: int
    known_value: str
    protected: bool
    token: str = ""

    @property
    def hidden(self) -> int:
        """How many of its cards this viewer cannot see (tucked, RULES #9)."""
        return sum(c.key is None for c in self.cards)


@dataclass(slots=True)
class SeatView:
    """One seat at the table, as the viewer may see it."""

    number: int
    name: str
    bot: bool
    you: bool
    to_act: bool
    hand_count: int
    tally: str
    round_wins: int
    resigned: bool
    sets: list[SetView] = field(default_factory=list)  # bottom first

    @property
    def under(self) -> int:
        """Sets under the top one."""
        return max(0, len(self.sets) - 1)

    @property
    def shown(self) -> list[ShownSet]:
        """The sets drawn at another's seat: the top, the second when it can be
        challenged (3+ sets, RULES #28), the protected bottom; the rest as a count."""
        last = len(self.sets) - 1
        if last < 0:
            return []
        picked = [(last, "top")]
        if len(self.sets) >= 3:
            picked.append((last - 1, "second"))
        if len(self.sets) >= 2:
            picked.append((0, "bottom"))
        return [self._shown(i, place) for i, place in picked]

    @property
    def stack(self) -> list[ShownSet]:
        """Every set, bottom first (the viewer's own stack, all of which they know)."""
        last = len(self.sets) - 1
        return [self._shown(i, "top" if i == last else "under") for i in range(last + 1)]

    def _shown(self, index: int, place: str) -> ShownSet:
        return ShownSet(self.sets[index], place, f"set-{self.number}-{index}")


@dataclass(frozen=True, slots=True)
class ShownSet:
    """A set as drawn: where in the stack (top, second, bottom, under), and the id the
    animations follow it by (its seat and height in the stack)."""

    set: SetView
    place: str
    flip: str


@dataclass(frozen=True, slots=True)
class PileView:
    """A draft pile (RULES #34): its number (from 1), size, top card and token."""

    number: int
    count: int
    top: CardView
    token: str


def display_name(username: str | None) -> str:
    """A player's name on the table: bot accounts lose their ``bot.`` prefix."""
    if not username:
        return _("empty seat")
    return username.removeprefix(BOT_PREFIX)


class Table:
    """Names of one game's cards and seats, for everything drawn from it."""

    def __init__(self, edition: str, names: list[str]) -> None:
        self.edition: Edition = EDITIONS[edition]
        self.names = names

    def card(self, key: str | None) -> CardView:
        """A card by key; ``None`` is a card this viewer may not see."""
        if key is None:
            return CardView(None, _("face down"), "", "hidden", "back")
        found: Card = self.edition.card(key)
        return CardView(key, found.name, format_dollars(found.value), found.kind, tier(found))

    def card_key(self, role: int) -> str:
        """The edition's key of a card by its role id (games.engine.cards: SWAP, MOVE)."""
        return self.edition.cards[role].key

    def cards(self, keys: list[str | None]) -> str:
        """Card names joined: "Piano + Gold"."""
        return " + ".join(self.card(k).name for k in keys)

    def seat(self, number: int | None) -> str:
        """A seat's player name."""
        if number is None or not 0 <= number < len(self.names):
            return "?"
        return self.names[number]

    # --- the board ---------------------------------------------------------------------

    def seats(self, view: dict[str, Any], *, bots: list[int], viewer: int | None) -> list[SeatView]:
        """Every seat with its stack, hand size, tally and round wins."""
        acting = (view.get("decision") or {}).get("seat")
        out = []
        for n in range(view["seats"]):
            seat = SeatView(
                number=n,
                name=self.seat(n),
                bot=n in bots,
                you=n == viewer,
                to_act=n == acting,
                hand_count=view["hand_counts"][n],
                tally=format_dollars(view["tallies"][n]),
                round_wins=view["round_wins"][n],
                resigned=n in view["resigned"],
            )
            stack = view["stacks"][n]
            for i, aset in enumerate(stack):
                token = ""
                if i == len(stack) - 1:
                    token = top_token(n)
                elif i == len(stack) - 2:
                    token = second_token(n)
                seat.sets.append(
                    SetView(
                        name=self.card(aset["kind"]).name,
                        face=self.card(aset["kind"]),
                        cards=[self.card(c) for c in aset["cards"]],
                        count=aset["count"],
                        known_value=format_dollars(aset["known_value"]),
                        protected=aset["protected"],
                        token=token,
                    )
                )
            out.append(seat)
        return out

    def piles(self, view: dict[str, Any]) -> list[PileView]:
        """The draft piles of a 2-3 seat table (RULES #34), face-down tops as backs."""
        return [
            PileView(i + 1, p["count"], self.card(p["top"]), pile_token(i))
            for i, p in enumerate(view["draft_piles"])
        ]

    def decision_words(self, view: dict[str, Any], viewer: int | None = None) -> str:
        """Whose decision it is, and what kind, in a sentence ("Your turn." to its seat)."""
        decision = view.get("decision")
        if not decision:
            return _("The game is over.")
        if decision["seat"] == viewer:
            yours = {
                "turn": _("Your turn."),
                "second_action": _("Your turn: you may take a second action."),
                "defend": _("Your set is challenged: answer or yield."),
                "counter": _("Your challenge was answered: answer back or yield."),
                "draft_challenge": _("You may challenge the drafted set, or let it go."),
                "move_choice": _("Choose which way the Move goes."),
            }
            return yours.get(decision["kind"], _("Your decision."))
        name = self.seat(decision["seat"])
        words = {
            "turn": _("%(name)s's turn."),
            "second_action": _("%(name)s may take a second action."),
            "defend": _("%(name)s must defend a challenged set."),
            "counter": _("%(name)s must answer the defence."),
            "draft_challenge": _("%(name)s may challenge the drafted set."),
            "move_choice": _("%(name)s chooses which way the Move goes."),
        }
        return words.get(decision["kind"], _("%(name)s must decide.")) % {"name": name}
