"""Reads of real tables, shared by the pages and the API: who sits where at a night's or
a tournament's round (a recorded game's score sheet is tournaments.scoresheets).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext as _

from games.models import Game, Seat
from tournaments.models import (
    GameEntry,
    GameNight,
    NightRound,
    ScoreRecord,
    Substitution,
    TournamentRound,
)


@dataclass(frozen=True)
class Sitter:
    """A player at a table, by name, in seat order."""

    seat: int
    name: str
    competitor: int
    user_id: int | None
    tally: int | None = None  # the seat's running tally, once a round is recorded


@dataclass(frozen=True)
class Table:
    """One table of a round: its game and its players in seat order."""

    number: int  # 0-based; pages show number + 1
    game: int
    status: str
    players: tuple[Sitter, ...]
    rounds_recorded: int
    waiting: int  # recorded rounds not yet confirmed
    disputed: bool
    winners: tuple[int, ...]  # seats, once the game has ended
    disputed_round: int | None = None  # the first disputed round, to settle

    @property
    def ended(self) -> bool:
        """Whether the table's game has ended (or was voided)."""
        return self.status in (Game.Status.FINISHED, Game.Status.ABORTED)

    @property
    def settled(self) -> bool:
        """Ended with every round confirmed: what a tournament round waits for
        (tournaments.results.counts, read from the sheet's figures)."""
        return self.ended and not self.waiting and not self.disputed


@dataclass(frozen=True)
class DrawnRound:
    """A seating draw (a night's round, or a tournament's round) and its tables."""

    number: int
    created_at: datetime
    quality: dict[str, int]
    tables: tuple[Table, ...]

    @property
    def finished(self) -> bool:
        """Whether every table's game has ended."""
        return all(t.ended for t in self.tables)


def night_rounds(night: GameNight) -> list[DrawnRound]:
    """The night's seating draws, first to last, each with its tables."""
    rounds = list(NightRound.objects.filter(night=night).order_by("number"))
    entries = GameEntry.objects.filter(night_round__night=night)
    by_round = _tables(entries, key="night_round_id")
    return [
        DrawnRound(r.number, r.created_at, dict(r.quality), tuple(by_round.get(r.pk, ())))
        for r in rounds
    ]


def tournament_rounds(rounds: Iterable[TournamentRound]) -> dict[int, tuple[Table, ...]]:
    """The tables of each tournament round (by the round's id) that has games."""
    ids = [r.pk for r in rounds]
    return {
        k: tuple(v)
        for k, v in _tables(GameEntry.objects.filter(round_id__in=ids), key="round_id").items()
    }


def with_substitutes(entries: QuerySet[GameEntry]) -> QuerySet[GameEntry]:
    """The entries, each with its seat's substitute if one took it (``substitute_name``,
    ``substitute_user``: None otherwise), in the same query."""
    taken = Substitution.objects.filter(game=OuterRef("game"), seat=OuterRef("seat"))
    return entries.annotate(
        substitute_name=Subquery(taken.values("substitute_name")[:1]),
        substitute_user=Subquery(taken.values("substitute_user_id")[:1]),
    )


def sitter(entry: GameEntry, tally: int | None = None) -> Sitter:
    """A seat's player, or (an entry read ``with_substitutes``) the substitute who took
    the seat, as "Eve for Cleo" with the substitute's account: they play it now."""
    substitute = getattr(entry, "substitute_name", None)
    if substitute is None:
        return Sitter(
            entry.seat, entry.competitor.name, entry.competitor_id, entry.competitor.user_id, tally
        )
    name = _("%(substitute)s for %(absent)s") % {
        "substitute": substitute,
        "absent": entry.competitor.name,
    }
    return Sitter(
        entry.seat, str(name), entry.competitor_id, getattr(entry, "substitute_user", None), tally
    )


def _tables(entries: QuerySet[GameEntry], *, key: str) -> dict[int, list[Table]]:
    """Tables grouped by ``key`` (a round's id), each in table order, with each seat's
    running tally and substitute: three queries."""
    tally = Seat.objects.filter(game=OuterRef("game"), number=OuterRef("seat")).values("tally")
    rows = list(
        with_substitutes(entries)
        .annotate(seat_tally=Subquery(tally[:1]))
        .select_related("competitor", "game")
        .order_by(key, "table", "game_id", "seat")
    )
    games = {e.game_id for e in rows}
    waiting: dict[int, int] = defaultdict(int)
    disputed: dict[int, int] = {}
    recorded: dict[int, int] = defaultdict(int)
    for game_id, status, kind, number in (
        ScoreRecord.objects.filter(game_id__in=games, superseded_by__isnull=True)
        .order_by("round_number")
        .values_list("game_id", "status", "kind", "round_number")
    ):
        if kind == ScoreRecord.Kind.VOID:
            continue
        recorded[game_id] += 1
        waiting[game_id] += status != ScoreRecord.Status.CONFIRMED
        if status == ScoreRecord.Status.DISPUTED:
            disputed.setdefault(game_id, number)
    grouped: dict[int, dict[int, list[GameEntry]]] = defaultdict(dict)
    for e in rows:
        grouped[getattr(e, key)].setdefault(e.game_id, []).append(e)
    out: dict[int, list[Table]] = {}
    for group, by_game in grouped.items():
        tables = []
        for game_id, seated in by_game.items():
            game = seated[0].game
            tables.append(
                Table(
                    number=seated[0].table or 0,
                    game=game_id,
                    status=game.status,
                    players=tuple(
                        sitter(e, e.seat_tally if recorded[game_id] else None)  # type: ignore[attr-defined]  # annotated
                        for e in seated
                    ),
                    rounds_recorded=recorded[game_id],
                    waiting=waiting[game_id],
                    disputed=game_id in disputed,
                    winners=tuple(game.winners or ()),
                    disputed_round=disputed.get(game_id),
                )
            )
        out[group] = sorted(tables, key=lambda t: (t.number, t.game))
    return out


# --- the score sheet ---------------------------------------------------------------------
