"""Reads: standings on two clocks, who organises what, change logs, exports.

Standings have two clocks. The clock of play (the default) counts the games played up to
a night of a season (``after_night``, by the night's date) or a round of a tournament
(``after_round``), whenever they were typed in. The clock of record (``as_of``) shows the
results as they stood in the database at a moment: the audit trail, which shows what a
later correction changed. The two combine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery, Sum

from accounts.models import User
from tournaments import ranking
from tournaments.models import (
    ChangeLog,
    Competition,
    Competitor,
    GameEntry,
    GameNight,
    League,
    Penalty,
    Result,
)


def league_organiser_ids(league: League) -> set[int]:
    """The users who run a league: its creator and the organisers added."""
    return {league.created_by_id, *league.organisers.values_list("pk", flat=True)}


def is_league_organiser(league: League, user: User | Any) -> bool:
    """Whether the user may change this league, its roster and seasons (staff always may)."""
    if not isinstance(user, User):
        return False
    return user.is_staff or user.pk in league_organiser_ids(league)


def league_of(competition: Competition) -> League | None:
    """The league a competition belongs to: a season's, or a club tournament's."""
    if hasattr(competition, "tournament"):
        return competition.tournament.league
    return competition.season.league


def organiser_ids(competition: Competition) -> set[int]:
    """The users who run a competition: a league's organisers; a tournament's organiser,
    and its league's organisers when it is a club's tournament."""
    if hasattr(competition, "tournament"):
        tournament = competition.tournament
        league = tournament.league
        return {tournament.organiser_id, *(league_organiser_ids(league) if league else ())}
    return league_organiser_ids(competition.season.league)


def is_organiser(competition: Competition, user: User | Any) -> bool:
    """Whether the user may change this competition (staff always may)."""
    if not isinstance(user, User):
        return False
    return user.is_staff or user.pk in organiser_ids(competition)


def results_at(
    competition: Competition,
    as_of: datetime | None,
    *,
    after_night: date | None = None,
    after_round: int | None = None,
) -> QuerySet[Result]:
    """The competition's result rows as they stood at ``as_of`` (None: now), of the games
    played up to the night of ``after_night`` or up to round ``after_round`` (None: all)."""
    rows = Result.objects.filter(competition=competition)
    if as_of is None:
        rows = rows.filter(valid_to__isnull=True)
    else:
        rows = rows.filter(valid_from__lte=as_of).filter(
            Q(valid_to__isnull=True) | Q(valid_to__gt=as_of)
        )
    if after_night is not None:
        # a game at no night (a season's digital game) was played the day it finished
        rows = rows.filter(
            Q(night__date__lte=after_night)
            | Q(night__isnull=True, game__finished_at__date__lte=after_night)
        )
    if after_round is not None:
        in_round = GameEntry.objects.filter(
            competition=OuterRef("competition"),
            game=OuterRef("game"),
            round__number__lte=after_round,
        )
        rows = rows.filter(Exists(in_round))
    return rows


def penalties_at(
    competition: Competition,
    as_of: datetime | None,
    *,
    after_night: date | None = None,
    after_round: int | None = None,
    night: GameNight | None = None,
) -> QuerySet[Penalty]:
    """The penalties in force on the standings' two clocks: given by ``as_of`` (None: now)
    and not withdrawn by then, at a night up to ``after_night`` or a round up to
    ``after_round``; with ``night``, those given at that night only."""
    rows = Penalty.objects.filter(competition=competition)
    if as_of is not None:  # given by then, and not withdrawn by then
        rows = rows.filter(created_at__lte=as_of).exclude(withdrawn_at__lte=as_of)
    else:
        rows = rows.filter(withdrawn_at__isnull=True)
    if night is not None:
        rows = rows.filter(night=night)
    if after_night is not None:
        # a penalty at no night (a season with none yet) counts from the day it was given
        rows = rows.filter(
            Q(night__date__lte=after_night)
            | Q(night__isnull=True, created_at__date__lte=after_night)
        )
    if after_round is not None:
        rows = rows.filter(Q(round__number__lte=after_round) | Q(round__isnull=True))
    return rows.select_related("competitor", "actor", "night", "round")


class _Detail(ranking.Detail):
    """Tie-break data from the database, fetched only for the entrants still tied."""

    def __init__(self, rows: QuerySet[Result]) -> None:
        self.rows = rows

    def head_to_head(self, entrants: Sequence[int]) -> dict[int, float]:
        return self.head_to_head_groups([entrants])

    def head_to_head_groups(self, groups: Sequence[Sequence[int]]) -> dict[int, float]:
        """Every tied group's head-to-head in one query: the games where two or more of
        the tied entrants sat, each scored within its own group."""
        everyone = [e for group in groups for e in group]
        games = (
            self.rows.filter(competitor_id__in=everyone)
            .values("game_id")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .values("game_id")
        )
        by_game: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for game_id, competitor_id, place in self.rows.filter(
            competitor_id__in=everyone, game_id__in=games
        ).values_list("game_id", "competitor_id", "place"):
            by_game[game_id].append((competitor_id, place))
        score = dict.fromkeys(everyone, 0.0)
        for group in groups:
            members = set(group)
            for table in by_game.values():
                seated = [(c, p) for c, p in table if c in members]
                for a, pa in seated:  # one point per tied rival finished ahead of
                    score[a] += sum(
                        1.0 if pa < pb else 0.5 if pa == pb else 0.0 for b, pb in seated if b != a
                    )
        return score

    def strength_of_schedule_groups(self, groups: Sequence[Sequence[int]]) -> dict[int, float]:
        """An entrant's strength of schedule does not depend on who else is tied: all
        groups' in the queries of one."""
        return self.strength_of_schedule([e for group in groups for e in group])

    def strength_of_schedule(self, entrants: Sequence[int]) -> dict[int, float]:
        mine = list(
            self.rows.filter(competitor_id__in=entrants).values_list("competitor_id", "game_id")
        )
        games = {g for _, g in mine}
        opponents: dict[int, list[int]] = defaultdict(list)
        for game_id, competitor_id in self.rows.filter(game_id__in=games).values_list(
            "game_id", "competitor_id"
        ):
            opponents[game_id].append(competitor_id)
        everyone = {c for cs in opponents.values() for c in cs}
        average = dict(
            self.rows.filter(competitor_id__in=everyone)
            .values_list("competitor_id")
            .annotate(Sum("placement"))
        )
        played = dict(
            self.rows.filter(competitor_id__in=everyone)
            .values_list("competitor_id")
            .annotate(Count("id"))
        )
        out = {}
        for entrant in entrants:
            values = [
                average[o] / played[o]
                for g in {g for c, g in mine if c == entrant}
                for o in opponents[g]
                if o != entrant
            ]
            out[entrant] = sum(values) / len(values) if values else 0.0
        return out


def standings(
    competition: Competition,
    *,
    as_of: datetime | None = None,
    night: GameNight | None = None,
    after_night: date | None = None,
    after_round: int | None = None,
) -> list[dict[str, Any]]:
    """The ranked table: rank, competitor, totals, and the tie-breaks that separated them,
    on the clock of play (``after_night``, ``after_round``) and of record (``as_of``).

    With ``night``, one game night of a season: its games only (``best_of`` does not
    apply), and only the players seated at one of its tables.
    """
    rows = results_at(competition, as_of, after_night=after_night, after_round=after_round)
    if night is not None:
        rows = rows.filter(night=night)
    elif competition.best_of:
        rows = _best_nights(rows, competition.best_of)
    aggregated = rows.values("competitor_id").annotate(
        games=Count("id"),
        points=Sum("points"),
        placement_sum=Sum("placement"),
        dsi_sum=Sum("dsi"),
        rounds_won=Sum("rounds_won"),
        wins=Count("id", filter=Q(won=True)),
        best_dsi=Max("dsi"),
        dollars=Sum("dollars"),
    )
    totals = [
        ranking.Totals(
            entrant=a["competitor_id"],
            games=a["games"],
            points=a["points"] or 0.0,
            placement_sum=a["placement_sum"] or 0.0,
            dsi_sum=a["dsi_sum"] or 0.0,
            rounds_won=a["rounds_won"] or 0,
            wins=a["wins"],
            best_dsi=a["best_dsi"] or 0.0,
            dollars=a["dollars"] or 0,
        )
        for a in aggregated
    ]
    seen = {t.entrant for t in totals}
    others = competition.competitors.exclude(pk__in=seen)
    if night is not None:  # tonight's players: who sat at a table, not who only came
        others = others.filter(entries__night=night).distinct()
    for competitor_id in others.values_list("pk", flat=True):
        totals.append(ranking.Totals(competitor_id, 0, 0.0, 0.0, 0.0, 0, 0, 0.0, 0))
    given = penalties_at(
        competition, as_of, after_night=after_night, after_round=after_round, night=night
    )
    names, penalised = _names_and_penalties(competition, given)
    # a penalty comes off the total before ranking: points rank, dollars are shown
    totals = [
        replace(
            t,
            points=t.points - penalised.get(t.entrant, (0.0, 0))[0],
            dollars=t.dollars - penalised.get(t.entrant, (0.0, 0))[1],
        )
        for t in totals
    ]
    order = competition.tiebreaks or list(ranking.DEFAULT_ORDER)
    ranked = ranking.rank(totals, order, _Detail(rows), competition.lot_seed)
    return [
        {
            "rank": position,
            "competitor": t.entrant,
            "name": names.get(t.entrant, ""),
            "games": t.games,
            "points": round(t.points, 4),
            "placement": round(t.placement, 4),
            "dsi": round(t.dsi, 4),
            "rounds_won": t.rounds_won,
            "wins": t.wins,
            "best_dsi": round(t.best_dsi, 4),
            "dollars": t.dollars,
            "penalty_points": round(penalised.get(t.entrant, (0.0, 0))[0], 4),
            "penalty_dollars": penalised.get(t.entrant, (0.0, 0))[1],
            "decided_by": decided,
        }
        for position, t, decided in ranked
    ]


def _names_and_penalties(
    competition: Competition, given: QuerySet[Penalty]
) -> tuple[dict[int, str], dict[int, tuple[float, int]]]:
    """Every competitor's name, and the (points, dollars) the ``given`` penalties take
    off each penalised one: one query, the penalties summed inside it."""

    def off(kind: str) -> Subquery:
        mine = given.filter(competitor=OuterRef("pk"), kind=kind).order_by().values("competitor")
        return Subquery(mine.annotate(total=Sum("amount")).values("total")[:1])

    names: dict[int, str] = {}
    penalised: dict[int, tuple[float, int]] = {}
    for pk, name, points, dollars in (
        Competitor.objects.filter(competition=competition)
        .annotate(points_off=off(Penalty.Kind.POINTS), dollars_off=off(Penalty.Kind.DOLLARS))
        .values_list("pk", "name", "points_off", "dollars_off")
    ):
        names[pk] = name
        if points or dollars:
            penalised[pk] = (points or 0.0, int(dollars or 0))
    return names, penalised


def _best_nights(rows: QuerySet[Result], best: int) -> QuerySet[Result]:
    """Each competitor's ``best`` nights by points (ties: the earlier date, no night first)."""
    per_night = rows.values("competitor_id", "night_id", "night__date").order_by()
    keep: dict[int, list[tuple[float, tuple[Any, ...], int | None]]] = defaultdict(list)
    for row in per_night.annotate(points=Sum("points")):  # by date: entered in any order
        first = () if row["night_id"] is None else (row["night__date"], row["night_id"])
        keep[row["competitor_id"]].append((-row["points"], first, row["night_id"]))
    allowed = Q(pk__in=[])
    for competitor_id, nights in keep.items():
        chosen = [night for *_, night in sorted(nights)[:best]]
        # the games at no night are one night; SQL's IN never matches a NULL night
        nightless = Q(night__isnull=True) if None in chosen else Q(pk__in=[])
        allowed |= Q(competitor_id=competitor_id) & (Q(night_id__in=chosen) | nightless)
    return rows.filter(allowed)


@dataclass(frozen=True)
class PlayedGame:
    """One counted game of a competitor: where it sat, how it went, whether it counts."""

    game: int
    night: GameNight | None
    draw: int | None  # the night's seating draw, when the table was drawn
    table: int | None  # 0-based
    table_size: int
    place: int
    points: float
    dollars: int
    dsi: float
    rounds_won: int
    won: bool
    counted: bool  # False for a night outside a season's best N


def competitor_games(
    competition: Competition,
    competitor: Competitor,
    *,
    as_of: datetime | None = None,
    after_night: date | None = None,
) -> list[PlayedGame]:
    """A competitor's counted games as they stood at ``as_of`` (None: now) up to the night
    of ``after_night``, night by night: the rows ``standings`` totals, each saying whether
    ``best_of`` keeps it. Three queries."""
    rows = results_at(competition, as_of, after_night=after_night).filter(competitor=competitor)
    kept = None
    if competition.best_of:
        kept = set(_best_nights(rows, competition.best_of).values_list("pk", flat=True))
    seat = GameEntry.objects.filter(
        competition=OuterRef("competition"), game=OuterRef("game"), competitor=competitor
    )
    annotated = (
        rows.select_related("night")
        .annotate(
            draw=Subquery(seat.values("night_round__number")[:1]),
            table_no=Subquery(seat.values("table")[:1]),
        )
        .order_by(F("night__date").asc(nulls_first=True), "night_id", "draw", "table_no", "game_id")
    )
    return [
        PlayedGame(
            game=r.game_id,
            night=r.night,
            draw=r.draw,
            table=r.table_no,
            table_size=r.table_size,
            place=r.place,
            points=r.points,
            dollars=r.dollars,
            dsi=r.dsi,
            rounds_won=r.rounds_won,
            won=r.won,
            counted=kept is None or r.pk in kept,
        )
        for r in annotated
    ]


def entries_of(competition: Competition) -> QuerySet[GameEntry]:
    """Who played which game, for exports."""
    return GameEntry.objects.filter(competition=competition).select_related(
        "competitor", "game", "night"
    )


def change_log(competition: Competition) -> QuerySet[ChangeLog]:
    """The competition's public change log, newest first."""
    return competition.changes.select_related("actor").order_by("-created_at", "-id")
