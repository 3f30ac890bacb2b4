"""``manage.py verify_games``: replay finished games from their logs and report every stored
value that differs from the replay (games.consistency).

    python manage.py verify_games                      # every finished digital game
    python manage.py verify_games --game 17 --game 18  # these games only
    python manage.py verify_games --since 2025-06-01   # games finished since then

Prints one line per mismatch (game, field, stored and replayed values) and a summary;
exits 1 if any mismatch was found, 2 if the arguments name games it cannot check.
"""

from __future__ import annotations

import argparse
from datetime import datetime, time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from games.consistency import Mismatch, finished_games, games_verify
from games.models import Game

# A value longer than this (a deck, a hand) is cut short in the report.
SHOWN_CHARS = 120


class Command(BaseCommand):
    help = (
        "Replay every finished digital game from its seed and action log and compare the "
        "stored rounds, tallies, places, versions, events and snapshot with the replay; "
        "exit 1 if anything differs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game",
            action="append",
            type=int,
            default=[],
            metavar="ID",
            help="check this game only (repeatable)",
        )
        parser.add_argument(
            "--since",
            type=_moment,
            default=None,
            metavar="DATE|DATETIME",
            help="check games finished at or after this (ISO 8601; a date means its midnight)",
        )

    def handle(self, *args: Any, game: list[int], since: datetime | None, **options: Any) -> None:
        _require_checkable(game)
        checked = found = games_wrong = 0
        for mismatches in games_verify(finished_games(ids=game, since=since)):
            checked += 1
            found += len(mismatches)
            games_wrong += bool(mismatches)
            for mismatch in mismatches:
                self.stdout.write(_line(mismatch))
        self.stdout.write(
            f"verified {_count(checked, 'game')}, {_count(found, 'mismatch', 'mismatches')}"
        )
        if not game:
            self._note_recorded(since)
        if found:
            raise CommandError(f"mismatches found in {_count(games_wrong, 'game')}", returncode=1)

    def _note_recorded(self, since: datetime | None) -> None:
        recorded = Game.objects.filter(status=Game.Status.FINISHED, mode=Game.Mode.RECORDED)
        if since is not None:
            recorded = recorded.filter(finished_at__gte=since)
        skipped = recorded.count()
        if skipped:
            self.stdout.write(
                f"skipped {_count(skipped, 'recorded game')}: played at real tables, they "
                "have no log (their truth is the competition's score ledger)"
            )


def _moment(text: str) -> datetime:
    """``--since``: an ISO 8601 date or datetime; naive ones are in the site's time zone."""
    try:
        moment = parse_datetime(text)
        day = parse_date(text) if moment is None else None
    except ValueError:  # well formed, but no such day or time
        moment = day = None
    if day is not None:
        moment = datetime.combine(day, time.min)
    if moment is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date or datetime")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _require_checkable(ids: list[int]) -> None:
    """Refuse (exit 2) ``--game`` ids that are not finished digital games, naming why."""
    if not ids:
        return
    rows = Game.objects.filter(pk__in=ids).values_list("pk", "status", "mode")
    found = {pk: (status, mode) for pk, status, mode in rows}
    problems = []
    for pk in dict.fromkeys(ids):
        status, mode = found.get(pk, (None, None))
        if status is None:
            problems.append(f"game {pk} does not exist")
        elif mode == Game.Mode.RECORDED:
            problems.append(f"game {pk} was recorded at a real table: it has no log")
        elif status != Game.Status.FINISHED:
            problems.append(f"game {pk} is {status}, not finished")
    if problems:
        raise CommandError("; ".join(problems), returncode=2)


def _line(mismatch: Mismatch) -> str:
    return (
        f"game {mismatch.game_id} {mismatch.field}: stored {_shown(mismatch.stored)}, "
        f"replayed {_shown(mismatch.replayed)}"
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
