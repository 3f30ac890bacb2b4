"""A match's games, and who decides each seat of them; the seat to act at a people's table."""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from django.db.models import F, QuerySet

from bots import persistence
from bots.models import Bot, BotVersion, MatchGame, SeatControl
from cya_site import rows
from games import store
from games.models import Game, GameSnapshot, Seat


def match_games(match_id: int) -> list[Game]:
    """The match's games in rotation order, each with its snapshot (store.load_state reads
    it there); on PostgreSQL in one statement."""
    if not persistence.sql_path():
        found = Game.objects.filter(match_game__match_id=match_id).select_related("snapshot")
        return list(found.order_by("match_game__rotation"))
    game, snapshot = _game_columns()
    pairs = rows.fetch_all(_games_sql(), [match_id], (game, snapshot))
    return [store.with_snapshot(g, n) for g, n in pairs]


@cache
def _game_columns() -> tuple[rows.Columns, rows.Columns]:
    return rows.Columns(Game, "g"), rows.Columns(GameSnapshot, "n")


@cache
def _games_sql() -> str:
    game, snapshot = _game_columns()
    mg, g, n = rows.Table(MatchGame, "mg"), rows.Table(Game, "g"), rows.Table(GameSnapshot, "n")
    return (
        f"SELECT {game.sql}, {snapshot.sql} FROM {mg}"
        f" JOIN {game.table} ON {g.id} = {mg.game}"
        f" LEFT JOIN {snapshot.table} ON {n.game} = {g.id}"
        f" WHERE {mg.match} = %s ORDER BY {mg.rotation}"
    )


class Seating(NamedTuple):
    """Who decides a seat of a match's game, as read when the game is taken up."""

    control_id: int
    autopilot: bool  # put on autopilot (three strikes)
    kind: str  # its bot's kind (Bot.Kind)
    strategy: str  # its version's built-in strategy ("" for webhook and API-client bots)


Seatings = dict[int, dict[int, Seating]]  # by game, then seat number


def match_seatings(match_id: int) -> Seatings:
    """Every seat of a match's games; on PostgreSQL in one statement."""
    if not persistence.sql_path():
        return _seatings_orm(SeatControl.objects.filter(seat__game__match_game__match_id=match_id))
    return _seatings(_seatings_sql(by_game=False), match_id)


def game_seatings(game_id: int) -> dict[int, Seating]:
    """Every seat of one of a match's games, by seat number; on PostgreSQL in one statement."""
    if not persistence.sql_path():
        controls = SeatControl.objects.filter(
            seat__game_id=game_id, seat__game__match_game__isnull=False
        )
        return _seatings_orm(controls).get(game_id, {})
    return _seatings(_seatings_sql(by_game=True), game_id).get(game_id, {})


def _seatings(sql: str, key: int) -> Seatings:
    with rows.cursor() as cursor:
        cursor.execute(sql, [key])
        return _by_game(cursor.fetchall())


def _seatings_orm(controls: QuerySet[SeatControl]) -> Seatings:
    return _by_game(
        (pk, game_id, number, autopilot is not None, kind, strategy)
        for pk, game_id, number, autopilot, kind, strategy in controls.values_list(
            "pk",
            "seat__game_id",
            "seat__number",
            "autopilot_since",
            "version__bot__kind",
            "version__strategy",
        )
    )


def _by_game(found: Any) -> Seatings:
    out: Seatings = {}
    for pk, game_id, number, autopilot, kind, strategy in found:
        out.setdefault(game_id, {})[number] = Seating(pk, bool(autopilot), kind, strategy)
    return out


@cache
def _seatings_sql(*, by_game: bool) -> str:
    mg, s, c = rows.Table(MatchGame, "mg"), rows.Table(Seat, "s"), rows.Table(SeatControl, "c")
    v, b = rows.Table(BotVersion, "v"), rows.Table(Bot, "b")
    return (
        f"SELECT {c.id}, {s.game}, {s.number}, {c.autopilot_since} IS NOT NULL,"
        f" {b.kind}, {v.strategy}"
        f" FROM {mg} JOIN {s} ON {s.game} = {mg.game} JOIN {c} ON {c.seat} = {s.id}"
        f" JOIN {v} ON {v.id} = {c.version} JOIN {b} ON {b.id} = {v.bot}"
        f" WHERE {s.game if by_game else mg.match} = %s"
    )


def turn_control(game_id: int, version: int) -> SeatControl | None:
    """The control of the bot seat to act in the active game at ``version``, with its
    game, snapshot, account and bot, in one query (a bot's turn at a people's table,
    once per move); None when it is no bot's turn there."""
    control = (
        SeatControl.objects.select_related("seat__user", "version__bot", "seat__game__snapshot")
        .filter(
            seat__game_id=game_id,
            seat__game__status=Game.Status.ACTIVE,
            seat__game__version=version,
            seat__number=F("seat__game__to_act"),
        )
        .first()
    )
    if control is None or control.seat.number not in control.seat.game.bot_seats:
        return None
    return control
