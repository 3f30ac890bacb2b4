"""What happened, in words: events as sentences, the challenge under way as a duel, a
round's summary, and the result of a game.

Pure presentation over public events and the viewer's observation (games.web.board
names the cards and seats), like everything in games.web.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cya_site.templatetags.pages import format_dollars
from games.web.board import CardView, Table

CHALLENGES = ("challenge", "draft_challenge")


@dataclass(frozen=True, slots=True)
class Play:
    """Cards played in a challenge, by one side."""

    seat: int
    name: str
    challenger: bool
    cards: list[CardView]


@dataclass(slots=True)
class Duel:
    """The challenge under way: who challenges whose set, the cards played so far in
    order, and who must answer now."""

    challenger: str
    holder: str
    kind: CardView
    depth: str
    responder: str
    drafted: list[CardView]
    plays: list[Play] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Place:
    """One seat's line in a result: its place, name, tally and round wins."""

    place: int
    name: str
    tally: str
    round_wins: int
    winner: bool
    resigned: bool
    you: bool


@dataclass(slots=True)
class Result:
    """The end of a game: winners, places, the ending rule that decided it, and how the
    rounds went."""

    winners: str
    places: list[Place]
    ending: str
    rounds: list[str]


class Story:
    """Sentences about one game's events, with its table's names."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def duel(self, view: dict[str, Any]) -> Duel | None:
        """The challenge under way (observation's ``challenge``) with its plays in order,
        from this round's public events."""
        ch = view.get("challenge")
        if not ch:
            return None
        t = self.table
        depth = {"top": _("top set"), "second": _("second set")}.get(ch["depth"], _("drafted set"))
        duel = Duel(
            challenger=t.seat(ch["challenger"]),
            holder=t.seat(ch["holder"]),
            kind=t.card(ch["kind"]),
            depth=depth,
            responder=t.seat(ch["responder"]),
            drafted=[t.card(c) for c in ch["drafted"] or []],
        )
        history = view["history"]
        start = max((i for i, e in enumerate(history) if e["type"] in CHALLENGES), default=None)
        for e in [] if start is None else history[start:]:
            if e["type"] in (*CHALLENGES, "play"):
                duel.plays.append(
                    Play(
                        e["seat"],
                        t.seat(e["seat"]),
                        e["seat"] == ch["challenger"],
                        [t.card(c) for c in e["cards"]],
                    )
                )
        return duel

    def summary(self, events: list[dict[str, Any]]) -> str:
        """How one round went, in two or three sentences (its public events)."""
        t = self.table
        end = next((e for e in events if e["type"] == "round_end"), None)
        pairs = sum(e["type"] in ("pair", "pair_discard", "draft") for e in events)
        fights = [e for e in events if e["type"] == "challenge_end"]
        fights += [e for e in events if e["type"] == "draft_end" and e.get("challenged")]
        stolen = [e for e in fights if e["winner"] == e["challenger"]]
        words = []
        if end is not None:
            best = max(end["scores"])
            words.append(
                _("Round %(round)s went to %(names)s with %(dollars)s.")
                % {
                    "round": end["round"],
                    "names": ", ".join(t.seat(s) for s in end["round_winners"]),
                    "dollars": format_dollars(best),
                }
            )
        words.append(
            ngettext("%(n)s set was formed", "%(n)s sets were formed", pairs) % {"n": pairs}
            + "; "
            + ngettext(
                "%(n)s challenge, %(stolen)s won by the challenger.",
                "%(n)s challenges, %(stolen)s won by the challenger.",
                len(fights),
            )
            % {"n": len(fights), "stolen": len(stolen)}
        )
        if stolen:
            big = max(stolen, key=lambda e: e["set_count"])
            words.append(
                _("The biggest steal: %(name)s took %(holder)s's %(kind)s set of %(count)s cards.")
                % {
                    "name": t.seat(big["winner"]),
                    "holder": t.seat(big["holder"]),
                    "kind": t.card(big["kind"]).name,
                    "count": big["set_count"],
                }
            )
        return " ".join(words)

    def result(
        self, view: dict[str, Any], rules: dict[str, Any], rounds: list[list[dict[str, Any]]]
    ) -> Result | None:
        """The end of the game (None while it is played): ``rounds`` are its rounds'
        public events, oldest first."""
        if not view["over"] or not view["ranking"]:
            return None
        t = self.table
        places = [
            Place(
                row["place"],
                t.seat(row["seat"]),
                format_dollars(row["tally"]),
                row["round_wins"],
                row["winner"],
                row["resigned"],
                row["seat"] == view["seat"],
            )
            for row in view["ranking"]
        ]
        return Result(
            winners=", ".join(t.seat(s) for s in view["winners"]),
            places=places,
            ending=self.ending(rules, view),
            rounds=[self.summary(events) for events in rounds],
        )

    def ending(self, rules: dict[str, Any], view: dict[str, Any]) -> str:
        """The ending rule that decided the game, in a sentence."""
        played = len(view["round_scores"])
        standing = sum(not row["resigned"] for row in view["ranking"])
        if standing == 1 and len(view["winners"]) == 1 and len(view["ranking"]) > 1:
            return _("Everyone else resigned.")
        ending = str(rules.get("ending", "classic"))
        n = int(rules.get("ending_rounds") or (3 if ending == "highest_after_n" else 2))
        words = {
            "classic": _("First to %(target)s at the end of a round wins (%(played)s rounds).")
            % {"target": format_dollars(rules.get("target", 1_000_000)), "played": played},
            "quick": _("Quick game: one round decides it."),
            "highest_after_n": _("The highest tally after %(n)s rounds wins.") % {"n": n},
            "first_to_n_round_wins": _("The first to win %(n)s rounds wins.") % {"n": n},
        }
        said: str = words.get(ending, ending)
        if len(view["winners"]) > 1:
            return said + " " + _("Tied players share the win.")
        if ending != "classic" and played > {"quick": 1, "highest_after_n": n}.get(ending, played):
            return said + " " + _("A tie at the top was played off in another round.")
        return said

    def sentence(self, e: dict[str, Any]) -> str:
        """One public event as a sentence ("Bob paired two Houses")."""
        t = e["type"]
        who = self.table.seat(e.get("seat"))
        if t == "round_start":
            return _("Round %(round)s is dealt; %(name)s starts.") % {
                "round": e["round"],
                "name": self.table.seat(e["first"]),
            }
        if t in ("pair", "pair_discard"):
            words = {
                "pair": _("%(name)s paired %(cards)s from their hand."),
                "pair_discard": _("%(name)s paired %(cards)s, taking the discard."),
            }[t]
            return words % {"name": who, "cards": self.table.cards(e["cards"])}
        if t == "discard":
            return _("%(name)s discarded %(card)s.") % {
                "name": who,
                "card": self.table.card(e["card"]).name,
            }
        if t == "draw":
            return _("%(name)s drew %(count)s.") % {"name": who, "count": e["count"]}
        if t == "challenge":
            return _("%(name)s challenged %(target)s's %(kind)s set with %(cards)s.") % {
                "name": who,
                "target": self.table.seat(e["target"]),
                "kind": self.table.card(e["kind"]).name,
                "cards": self.table.cards(e["cards"]),
            }
        if t in ("play", "draft_challenge"):
            return _("%(name)s played %(cards)s.") % {
                "name": who,
                "cards": self.table.cards(e["cards"]),
            }
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
                "name": self.table.seat(e["winner"]),
                "kind": self.table.card(e["kind"]).name,
            }
        if t == "draft":
            return _("%(name)s drafted %(cards)s.") % {
                "name": who,
                "cards": self.table.cards(e["cards"]),
            }
        if t == "reveal":
            return _("Pile %(pile)s shows %(card)s.") % {
                "pile": e["pile"] + 1,
                "card": self.table.card(e["card"]).name,
            }
        if t == "improve":
            return _("%(name)s improved their top set with %(card)s.") % {
                "name": who,
                "card": self.table.card(e["card"]).name,
            }
        if t == "swap":
            return _("%(name)s swapped top sets with %(target)s.") % {
                "name": who,
                "target": self.table.seat(e["target"]),
            }
        if t in ("move", "choose_move"):
            words = (
                _("%(name)s moved %(target)s's top set to the bottom.")
                if e["direction"] == "top_to_bottom"
                else _("%(name)s moved %(target)s's bottom set to the top.")
            )
            return words % {"name": who, "target": self.table.seat(e["target"])}
        if t == "pile_action":
            return _("Pile %(pile)s shows %(card)s, which takes effect.") % {
                "pile": e["pile"] + 1,
                "card": self.table.card(e["card"]).name,
            }
        if t == "round_end":
            winners = ", ".join(self.table.seat(s) for s in e["round_winners"])
            return _("Round %(round)s ends; won by %(names)s.") % {
                "round": e["round"],
                "names": winners,
            }
        if t == "game_end":
            winners = ", ".join(self.table.seat(s) for s in e["winners"])
            return _("The game is over; %(names)s won.") % {"names": winners}
        return _("%(name)s: %(what)s.") % {"name": who, "what": t.replace("_", " ")}
