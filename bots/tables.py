"""Bots at people's tables: seating them and playing their turns.

A person opens a table with bot opponents (``POST /api/v1/games/`` with ``bots``); games
knows only which seats are bots' (``Game.bot_seats``) and asks this module, through the
port it defines (games.seating), to seat them and, after every change that leaves a bot
to act, to play. Each bot turn is a task (``bots.play_turn``) sent BOT_MOVE_DELAY_MS
after the change, so people see the bots' moves one by one; it plays the seat exactly as
a match would (bots.runner), and the action it submits announces the next decision,
which sends the next bot's turn. A turn whose task was lost (a broker restart, a dead
worker) is sent again seconds after it was due (``bots.check_turns``,
bots.recovery.late_turns), and by the sweep as a last resort.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from bots import selectors, tasks
from bots.models import Bot, BotVersion, SeatControl
from bots.validation import SEATABLE_BUILTINS, builtin_versions
from cya_site import dispatch
from cya_site.errors import DomainError
from games.models import Game, Seat
from games.seating import BotChoice


class Players:
    """games.seating's port, provided by the bots app (bots.apps)."""

    def seat(self, *, game: Game, choices: Sequence[BotChoice], by: User) -> None:
        table_seat(game=game, choices=choices, by=by)

    def turn(self, game_id: int, version: int) -> None:
        delay = settings.BOT_MOVE_DELAY_MS / 1000
        dispatch.send(tasks.play_turn, (game_id, version), countdown=delay)


def table_seat(*, game: Game, choices: Sequence[BotChoice], by: User) -> None:
    """Seat bots at an open table (games.seating's ``seat``): each choice names a free
    seat and a built-in strategy or a validated version. Each bot seat is played under a
    SeatControl, with the ladder's time control and strikes (bots.runner).

    A version may sit at one table more than once (three greedy opponents): its second
    seat plays as a seat account of its own (``bot.<name>.2``), since one account holds
    one seat per table; an API-client version plays with its one token, so it sits once.
    """
    seats = {seat.number: seat for seat in Seat.objects.filter(game=game).select_related("user")}
    chosen: set[int] = set()
    for choice in choices:
        if not 0 <= choice.seat < game.seat_count:
            raise DomainError(
                "no_such_seat",
                f"This table has seats 0 to {game.seat_count - 1}.",
                {"seat": choice.seat},
            )
        if choice.seat in chosen or seats[choice.seat].user_id is not None:
            raise DomainError("seat_taken", "That seat is taken.", {"seat": choice.seat}, 409)
        chosen.add(choice.seat)
    versions = _chosen_versions(choices)
    taken = {seat.user_id for seat in seats.values() if seat.user_id is not None}
    now = timezone.now()
    for choice in choices:
        version = versions[choice]
        seat = seats[choice.seat]
        seat.user = _seat_user(version, taken, choice.seat)
        seat.joined_at = now
        seat.save(update_fields=["user", "joined_at"])
        taken.add(seat.user.pk)
        SeatControl.objects.create(
            seat=seat, version=version, time_bank_ms=settings.LADDER_TIME_BANK_MS
        )


def _chosen_versions(choices: Sequence[BotChoice]) -> dict[BotChoice, BotVersion]:
    """Each choice's version: the built-in one of its strategy, or the validated version
    it names (``unknown_strategy``, ``no_such_version`` otherwise)."""
    out: dict[BotChoice, BotVersion] = {}
    builtins: dict[str, BotVersion] | None = None
    ids = {choice.version for choice in choices if choice.version is not None}
    found = {v.pk: v for v in selectors.seatable_versions().filter(pk__in=ids)}
    for choice in choices:
        if choice.version is not None:
            if choice.version not in found:
                raise DomainError(
                    "no_such_version",
                    "No validated version of an active bot has that id.",
                    {"seat": choice.seat, "version": choice.version},
                )
            out[choice] = found[choice.version]
            continue
        if builtins is None:
            builtins = {v.strategy: v for v in builtin_versions(SEATABLE_BUILTINS)}
        if choice.strategy not in builtins:
            raise DomainError(
                "unknown_strategy",
                f"strategy must be one of {', '.join(sorted(builtins))}",
                {"seat": choice.seat, "strategy": choice.strategy},
            )
        out[choice] = builtins[choice.strategy]
    return out


def _seat_user(version: BotVersion, taken: set[int], seat: int) -> User:
    """The account a version plays a seat as: the bot's own, or a seat account of the
    version's bot if the bot's own already sits at this table."""
    user = version.bot.user
    if user.pk not in taken:
        return user
    if version.bot.kind == Bot.Kind.API_CLIENT:
        raise DomainError(
            "bot_seated_twice",
            "An API-client bot plays with one token, so it takes one seat per table.",
            {"seat": seat, "version": version.pk},
            409,
        )
    for copy in range(2, 10):
        extra, created = User.objects.get_or_create(
            username=f"{user.username}.{copy}", defaults={"is_bot": True}
        )
        if created:
            extra.set_unusable_password()
            extra.save(update_fields=["password"])
        if extra.pk not in taken:
            return extra
    raise AssertionError("a table has at most eight seats")  # pragma: no cover
