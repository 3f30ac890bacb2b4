"""A recorded game's score sheet, read for the pages and the API: its rounds, running
tallies and ledger, and a night's sheets table by table.

Nothing here decides a rule: tallies, round winners, places and the end come from the
rows the engine's ending rules derived when the round was recorded
(games.services.recorded_rounds_set), and the ledger gives what was entered, by whom,
and what was confirmed, disputed or corrected.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, Min, Prefetch

from accounts.models import User
from games.engine import RuleSet
from games.models import Game, RoundScore, Seat
from tournaments import selectors, tables
from tournaments.models import (
    Competition,
    GameEntry,
    GameNight,
    ScoreRecord,
    ScoreVote,
)
from tournaments.tables import Sitter


@dataclass(frozen=True)
class Vote:
    """A player's (or an organiser's) confirmation or dispute of a round."""

    voter: str
    voter_id: int
    verdict: str
    reason: str
    as_organiser: bool
    at: datetime


@dataclass(frozen=True)
class SheetRound:
    """A recorded round as it stands: dollars and tallies by seat, who led it, its votes."""

    number: int
    record: int  # the effective ledger record
    kind: str  # entered, or corrected
    dollars: tuple[int, ...]
    tallies: tuple[int, ...]
    leaders: tuple[int, ...]  # seats with the round's top score
    status: str
    entered_by: str
    votes: tuple[Vote, ...]

    def voted(self, user: User | object) -> bool:
        """Whether this user has confirmed or disputed the round."""
        return isinstance(user, User) and any(v.voter_id == user.pk for v in self.votes)

    def waiting_for(self, players: tuple[Sitter, ...]) -> list[str]:
        """The players with accounts at the table who have not confirmed it yet."""
        if self.status != ScoreRecord.Status.PENDING:
            return []
        voted = {v.voter_id for v in self.votes}
        return [p.name for p in players if p.user_id is not None and p.user_id not in voted]


@dataclass(frozen=True)
class LedgerLine:
    """One record of the append-only ledger: what was entered or changed, by whom, why."""

    record: int
    round_number: int
    kind: str
    dollars: tuple[int, ...]
    actor: str
    reason: str
    at: datetime
    superseded: bool
    replaced: tuple[int, ...] | None  # a correction's or removal's old dollars


@dataclass(frozen=True)
class Sheet:
    """A recorded game's score sheet: the table, its rounds, the end, the ledger."""

    game: Game
    rules: RuleSet
    competition: Competition
    players: tuple[Sitter, ...]
    rounds: tuple[SheetRound, ...]
    ledger: tuple[LedgerLine, ...]
    places: dict[int, int] = field(default_factory=dict)  # seat -> place, once ended

    @property
    def ended(self) -> bool:
        """Whether the rounds entered have ended the game under its ending rules."""
        return self.game.status == Game.Status.FINISHED

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats, once the game has ended."""
        return tuple(self.game.winners or ())

    @property
    def tallies(self) -> tuple[int, ...]:
        """Each seat's running tally after the last round."""
        return self.rounds[-1].tallies if self.rounds else (0,) * len(self.players)

    @property
    def disputed(self) -> SheetRound | None:
        """The disputed round that freezes the table, if any."""
        return next((r for r in self.rounds if r.status == ScoreRecord.Status.DISPUTED), None)

    @property
    def corrected(self) -> bool:
        """Whether any round was ever corrected or removed."""
        return any(line.kind != ScoreRecord.Kind.ENTER for line in self.ledger)

    @property
    def version(self) -> int:
        """Changes whenever anything on the sheet changes: the ledger's length and the
        votes cast (a poll compares it to skip sending an unchanged sheet)."""
        return len(self.ledger) * 1000 + sum(len(r.votes) for r in self.rounds)

    def seat_of(self, user: User | object) -> int | None:
        """The user's seat at this table, if they play at it."""
        if not isinstance(user, User):
            return None
        return next((p.seat for p in self.players if p.user_id == user.pk), None)

    def may_enter(self, user: User | object) -> bool:
        """Whether the user may enter rounds: a player at the table or an organiser."""
        return self.seat_of(user) is not None or selectors.is_organiser(self.competition, user)


def sitters(game: Game) -> tuple[Sitter, ...]:
    """The players at a recorded game's table, in seat order (one query)."""
    entries = tables.with_substitutes(GameEntry.objects.filter(game=game))
    return tuple(tables.sitter(e) for e in entries.select_related("competitor").order_by("seat"))


def sheet(game: Game) -> Sheet:
    """The score sheet of a recorded game, in five queries."""
    return sheets([game])[0]


def sheets(games: Sequence[Game]) -> list[Sheet]:
    """The score sheets of recorded games, in the order given: five queries however many
    (a night's page charts every table)."""
    ids = [g.pk for g in games]
    entries: dict[int, list[GameEntry]] = defaultdict(list)
    for entry in (
        tables.with_substitutes(GameEntry.objects.filter(game_id__in=ids))
        .select_related("competition", "competitor")
        .order_by("game_id", "seat")
    ):
        entries[entry.game_id].append(entry)
    scores: dict[tuple[int, int], list[RoundScore]] = defaultdict(list)
    for score in RoundScore.objects.filter(round__game_id__in=ids).select_related("round", "seat"):
        scores[score.round.game_id, score.round.number].append(score)
    records: dict[int, list[ScoreRecord]] = defaultdict(list)
    for record in (
        ScoreRecord.objects.filter(game_id__in=ids)
        .select_related("actor", "superseded_by")
        .prefetch_related(
            Prefetch("votes", queryset=ScoreVote.objects.select_related("voter").order_by("id"))
        )
        .order_by("id")
    ):
        records[record.game_id].append(record)
    places: dict[int, dict[int, int]] = defaultdict(dict)
    finished = [g.pk for g in games if g.status == Game.Status.FINISHED]
    for game_id, number, place in Seat.objects.filter(game_id__in=finished).values_list(
        "game_id", "number", "place"
    ):
        if place is not None:
            places[game_id][number] = place
    return [
        _sheet(game, entries[game.pk], scores, records[game.pk], places[game.pk]) for game in games
    ]


def _sheet(
    game: Game,
    entries: list[GameEntry],
    scores: dict[tuple[int, int], list[RoundScore]],
    records: list[ScoreRecord],
    places: dict[int, int],
) -> Sheet:
    players = tuple(tables.sitter(e) for e in entries)
    current = {
        r.round_number: r for r in records if not _superseded(r) and r.kind != ScoreRecord.Kind.VOID
    }
    rounds = []
    for number in sorted(current):
        record = current[number]
        by_seat = sorted(scores.get((game.pk, number), ()), key=lambda s: s.seat.number)
        rounds.append(
            SheetRound(
                number=number,
                record=record.pk,
                kind=record.kind,
                dollars=tuple(record.dollars),
                tallies=tuple(s.tally for s in by_seat),
                leaders=tuple(s.seat.number for s in by_seat if s.won_round),
                status=record.status,
                entered_by=record.actor.username,
                votes=tuple(
                    Vote(
                        v.voter.username,
                        v.voter_id,
                        v.verdict,
                        v.reason,
                        v.as_organiser,
                        v.created_at,
                    )
                    for v in record.votes.all()
                ),
            )
        )
    by_pk = {r.pk: r for r in records}
    ledger = tuple(
        LedgerLine(
            r.pk,
            r.round_number,
            r.kind,
            tuple(r.dollars),
            r.actor.username,
            r.reason,
            r.created_at,
            _superseded(r),
            tuple(by_pk[r.supersedes_id].dollars) if r.supersedes_id in by_pk else None,
        )
        for r in records
    )
    return Sheet(
        game=game,
        rules=RuleSet.from_json(game.rules),
        competition=entries[0].competition,
        players=players,
        rounds=tuple(rounds),
        ledger=ledger,
        places=places,
    )


@dataclass(frozen=True)
class NightTable:
    """A recorded table of a night: its seating draw and table number (when drawn)."""

    draw: int | None
    table: int | None  # 0-based; pages show table + 1
    sheet: Sheet


def night_sheets(night: GameNight) -> list[NightTable]:
    """The score sheets of every recorded game of a night, drawn or opened by hand, in
    draw and table order: six queries however many tables."""
    games = list(
        Game.objects.filter(competition_entries__night=night, mode=Game.Mode.RECORDED)
        .annotate(
            draw=Min("competition_entries__night_round__number"),
            table_no=Min("competition_entries__table"),
        )
        .order_by(F("draw").asc(nulls_last=True), F("table_no").asc(nulls_last=True), "pk")
    )
    return [
        NightTable(getattr(g, "draw", None), getattr(g, "table_no", None), s)
        for g, s in zip(games, sheets(games), strict=True)
    ]


def _superseded(record: ScoreRecord) -> bool:
    return hasattr(record, "superseded_by")
