"""The table in words: an observation, its legal actions and its events, ready to render.

Pure presentation over what games.selectors already gives a viewer (``observe`` for
their seat, the decision's ``legal_actions``, the public events): nothing here reads
the database or the engine's state, so nothing here can show more than the observation
holds. Card keys become the edition's printed names and values (games.engine.cards),
seats become player names, actions become labelled controls grouped as a player thinks
of them, and events become sentences.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from cya_site.templatetags.pages import format_dollars
from games.engine.cards import EDITIONS, Card, Edition

BOT_PREFIX = "bot."


@dataclass(frozen=True, slots=True)
class CardView:
    """One card as shown: its printed name and value; ``None`` name: face down."""

    key: str | None
    name: str
    value: str
    kind: str


@dataclass(frozen=True, slots=True)
class SetView:
    """A set in a stack: its asset, cards (face-down ones hidden), the value known."""

    name: str
    cards: list[CardView]
    known_value: str
    protected: bool


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
    stack: list[SetView] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Control:
    """One legal action as a button: its words and the JSON it submits."""

    label: str
    action: str


@dataclass(slots=True)
class ControlGroup:
    """Controls that belong together (every pair from the hand, one challenge target)."""

    title: str
    controls: list[Control] = field(default_factory=list)


def display_name(username: str | None) -> str:
    """A player's name on the table: bot accounts lose their ``bot.`` prefix."""
    if not username:
        return _("empty seat")
    return username.removeprefix(BOT_PREFIX)


class Table:
    """Names of one game's cards and seats, for everything rendered from it."""

    def __init__(self, edition: str, names: list[str]) -> None:
        self.edition: Edition = EDITIONS[edition]
        self.names = names

    def card(self, key: str | None) -> CardView:
        """A card by key; ``None`` is a card this viewer may not see."""
        if key is None:
            return CardView(None, _("face down"), "", "hidden")
        found: Card = self.edition.card(key)
        return CardView(key, found.name, format_dollars(found.value), found.kind)

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
            for aset in view["stacks"][n]:
                seat.stack.append(
                    SetView(
                        name=self.card(aset["kind"]).name,
                        cards=[self.card(c) for c in aset["cards"]],
                        known_value=format_dollars(aset["known_value"]),
                        protected=aset["protected"],
                    )
                )
            out.append(seat)
        return out

    def decision_words(self, view: dict[str, Any]) -> str:
        """Whose decision it is, and what kind, in a sentence."""
        decision = view.get("decision")
        if not decision:
            return _("The game is over.")
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

    def challenge_words(self, view: dict[str, Any]) -> str:
        """The challenge under way, if any, in a sentence."""
        ch = view.get("challenge")
        if not ch:
            return ""
        played = self.cards(ch["played"]) if ch["played"] else _("nothing yet")
        return _(
            "%(challenger)s challenges %(holder)s's %(kind)s set; cards played: %(played)s."
        ) % {
            "challenger": self.seat(ch["challenger"]),
            "holder": self.seat(ch["holder"]),
            "kind": self.card(ch["kind"]).name,
            "played": played,
        }

    # --- controls ----------------------------------------------------------------------

    def controls(self, legal: list[dict[str, Any]], kind: str) -> list[ControlGroup]:
        """The legal actions as grouped controls, in the engine's order within a group."""
        groups: dict[str, ControlGroup] = {}
        for action in legal:
            title, label = self._words(action, kind)
            group = groups.setdefault(title, ControlGroup(title))
            group.controls.append(Control(label, json.dumps(action, separators=(",", ":"))))
        return list(groups.values())

    def _words(self, a: dict[str, Any], kind: str) -> tuple[str, str]:
        """(group title, button label) of one action."""
        t = a["type"]
        if t == "pair":
            return _("Pair two cards from your hand"), self.cards(a["cards"])
        if t == "pair_discard":
            return _("Pair a card with the discard pile's top"), self.card(a["card"]).name
        if t == "discard":
            return _("Discard a card"), self.card(a["card"]).name
        if t == "challenge":
            depth = _("top set") if a["depth"] == "top" else _("second set")
            title = _("Challenge %(name)s's %(depth)s with") % {
                "name": self.seat(a["target"]),
                "depth": depth,
            }
            return title, self.cards(a["cards"])
        if t == "draft":
            piles = ", ".join(str(p + 1) for p in a["piles"])
            return _("Draft a set from the piles"), _("%(card)s with pile %(piles)s") % {
                "card": self.card(a["card"]).name,
                "piles": piles,
            }
        if t == "play":
            if kind == "draft_challenge":
                return _("Challenge the drafted set with"), self.cards(a["cards"])
            return _("Answer the challenge with"), self.cards(a["cards"])
        if t == "improve":
            return _("Improve your top set with"), self.card(a["card"]).name
        if t == "swap":
            return _("Play Swap"), _("Swap with %(name)s") % {"name": self.seat(a["target"])}
        if t in ("move", "choose_move"):
            way = _("top to bottom") if a["direction"] == "top_to_bottom" else _("bottom to top")
            if t == "choose_move":
                return _("Choose the Move's direction"), way
            return _("Play Move"), f"{self.seat(a['target'])}: {way}"
        finish = {
            "concede": _("Yield (concede the challenge)"),
            "pass": _("Let it go (pass)"),
            "end_turn": _("End your turn"),
        }
        return _("Or"), finish.get(t, t)

    # --- the log -----------------------------------------------------------------------

    def sentence(self, e: dict[str, Any]) -> str:
        """One public event as a sentence ("Bob paired two Houses")."""
        t = e["type"]
        who = self.seat(e.get("seat"))
        if t == "round_start":
            return _("Round %(round)s is dealt; %(name)s starts.") % {
                "round": e["round"],
                "name": self.seat(e["first"]),
            }
        if t in ("pair", "pair_discard"):
            words = {
                "pair": _("%(name)s paired %(cards)s from their hand."),
                "pair_discard": _("%(name)s paired %(cards)s, taking the discard."),
            }[t]
            return words % {"name": who, "cards": self.cards(e["cards"])}
        if t == "discard":
            return _("%(name)s discarded %(card)s.") % {
                "name": who,
                "card": self.card(e["card"]).name,
            }
        if t == "draw":
            return _("%(name)s drew %(count)s.") % {"name": who, "count": e["count"]}
        if t == "challenge":
            return _("%(name)s challenged %(target)s's %(kind)s set with %(cards)s.") % {
                "name": who,
                "target": self.seat(e["target"]),
                "kind": self.card(e["kind"]).name,
                "cards": self.cards(e["cards"]),
            }
        if t in ("play", "draft_challenge"):
            return _("%(name)s played %(cards)s.") % {"name": who, "cards": self.cards(e["cards"])}
        if t in ("concede", "pass", "end_turn", "resign"):
            words = {
                "concede": _("%(name)s yielded."),
                "pass": _("%(name)s let it go."),
                "end_turn": _("%(name)s ended their turn."),
                "resign": _("%(name)s resigned."),
            }[t]
            return words % {"name": who}
        if t in ("challenge_end", "draft_end"):
            return _("%(name)s won the %(kind)s set.") % {
                "name": self.seat(e["winner"]),
                "kind": self.card(e["kind"]).name,
            }
        if t == "draft":
            return _("%(name)s drafted %(cards)s.") % {"name": who, "cards": self.cards(e["cards"])}
        if t == "reveal":
            return _("Pile %(pile)s shows %(card)s.") % {
                "pile": e["pile"] + 1,
                "card": self.card(e["card"]).name,
            }
        if t == "improve":
            return _("%(name)s improved their top set with %(card)s.") % {
                "name": who,
                "card": self.card(e["card"]).name,
            }
        if t == "swap":
            return _("%(name)s swapped top sets with %(target)s.") % {
                "name": who,
                "target": self.seat(e["target"]),
            }
        if t in ("move", "choose_move"):
            words = (
                _("%(name)s moved %(target)s's top set to the bottom.")
                if e["direction"] == "top_to_bottom"
                else _("%(name)s moved %(target)s's bottom set to the top.")
            )
            return words % {"name": who, "target": self.seat(e["target"])}
        if t == "pile_action":
            return _("Pile %(pile)s shows %(card)s, which takes effect.") % {
                "pile": e["pile"] + 1,
                "card": self.card(e["card"]).name,
            }
        if t == "round_end":
            winners = ", ".join(self.seat(s) for s in e["round_winners"])
            return _("Round %(round)s ends; won by %(names)s.") % {
                "round": e["round"],
                "names": winners,
            }
        if t == "game_end":
            winners = ", ".join(self.seat(s) for s in e["winners"])
            return _("The game is over; %(names)s won.") % {"names": winners}
        return _("%(name)s: %(what)s.") % {"name": who, "what": t.replace("_", " ")}
