"""A bot's decision log, for its owner only: at each of its decisions, the request's size,
the answer as returned, the latency, any strike and the bot's optional ``debug`` note.

Stored compressed and in batches, so a busy ladder pays about one small insert per bot
seat per game: the match runner collects a game's decisions in memory (``batch``) and
writes them when the game ends (or its run stops), one ``DecisionLog`` row per seat, a
zlib stream (with a preset dictionary of the log's own words) over NDJSON lines. A turn
at a people's table and an API client's action are written as they come, a batch of one.
Rows are deleted ``DECISION_LOG_DAYS`` after they were written (``expire``).

A line (docs/bot-protocol.md, "The decision log")::

    {"version": 12, "seat": 1, "request_bytes": 2210, "answer": {"type": "pass"},
     "latency_ms": 38, "strike": null, "strike_detail": "", "debug": "why", "at": "..."}

``version`` is the game version the decision answered; its move is replay step
``version + 1``. ``request_bytes`` is null for an API client (it reads its decision
itself); ``answer`` is null when nothing usable came (a timeout, a broken answer).
"""

from __future__ import annotations

import json
import logging
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from bots.models import Bot, DecisionLog, SeatControl
from bots.webhook import debug_note
from cya_site.errors import DomainError
from games import selectors as game_selectors
from games.decision_logs import Shown

log = logging.getLogger(__name__)

EXPIRE_BATCH = 5000  # rows deleted per statement by ``expire``

# The preset dictionary (RFC 1950 FDICT): the words every line repeats, so that even a
# batch of one compresses. Part of the stored format (pinned by a test): never change it;
# each stream names its dictionary by Adler-32 (DICTID), so another can be told apart.
_ZDICT = (
    b'"strike_detail":"","debug":"","at":"2026-11-27T09:00:00.000000+00:00"}\n'
    b'{"type":"discard","card":"","removed":false},{"type":"play","cards":["silver"]},'
    b'{"type":"end_turn"},{"type":"pass"},{"type":"concede"},{"type":"challenge","target":'
    b'{"type":"choose_move","direction":"top_to_bottom"},"strike":"timeout","strike":null,'
    b'"answer":null,"latency_ms":,"request_bytes":null,"answer":{"type":"discard","card":"'
    b'{"version":,"seat":,"request_bytes":'
)

_local = threading.local()


@dataclass(frozen=True)
class Entry:
    """One decision of a bot seat, as its owner sees it."""

    game_id: int
    seat: int
    version_id: int  # the BotVersion that decided
    at_version: int  # the game version the decision answered
    request_bytes: int | None
    answer: Any
    latency_ms: int | None
    strike: str | None = None
    strike_detail: str = ""
    debug: str = ""

    def line(self, at: datetime) -> dict[str, Any]:
        """The entry as one NDJSON line's object."""
        return {
            "version": self.at_version,
            "seat": self.seat,
            "request_bytes": self.request_bytes,
            "answer": self.answer,
            "latency_ms": self.latency_ms,
            "strike": self.strike,
            "strike_detail": self.strike_detail,
            "debug": self.debug,
            "at": at.isoformat(),
        }


# --- the stored format --------------------------------------------------------------------


def ndjson_line(line: dict[str, Any]) -> bytes:
    """One line of NDJSON (compact, UTF-8, newline-terminated)."""
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def encode(lines: Iterable[dict[str, Any]]) -> tuple[bytes, int]:
    """NDJSON of these lines, compressed; and its size before compression."""
    raw = b"".join(map(ndjson_line, lines))
    packer = zlib.compressobj(6, zdict=_ZDICT)
    return packer.compress(raw) + packer.flush(), len(raw)


def decode(data: bytes | memoryview) -> list[dict[str, Any]]:
    """The lines of one stored batch."""
    unpacker = zlib.decompressobj(zdict=_ZDICT)
    raw = unpacker.decompress(bytes(data)) + unpacker.flush()
    return [json.loads(line) for line in raw.splitlines() if line]


# --- writing -------------------------------------------------------------------------------


@contextmanager
def batch() -> Iterator[None]:
    """Keep this thread's entries in memory meanwhile, and write them at the end (even if
    the work inside stops on an error): one row per game and seat. Nested, the outermost
    writes."""
    if getattr(_local, "entries", None) is not None:
        yield
        return
    _local.entries = []
    try:
        yield
    finally:
        entries, _local.entries = _local.entries, None
        _write_quietly(entries)


def record(entry: Entry) -> None:
    """Keep one decision: in this thread's batch if one is open, else written now."""
    entries: list[Entry] | None = getattr(_local, "entries", None)
    if entries is None:
        _write_quietly([entry])
    else:
        entries.append(entry)


def _write_quietly(entries: list[Entry]) -> None:
    """Write, and never let a log the owner reads stop or fail a game: an outage loses it."""
    try:
        write(entries)
    except DatabaseError:
        log.warning("decision log of %s entries lost to a database error", len(entries))


def write(entries: Iterable[Entry]) -> list[DecisionLog]:
    """Store these entries: one compressed row per game, seat and version, in one insert."""
    now = timezone.now()
    groups: dict[tuple[int, int, int], list[Entry]] = {}
    for entry in entries:
        groups.setdefault((entry.game_id, entry.seat, entry.version_id), []).append(entry)
    rows = []
    for (game_id, seat, version_id), group in groups.items():
        data, raw = encode(e.line(now) for e in group)
        rows.append(
            DecisionLog(
                game_id=game_id,
                seat=seat,
                version_id=version_id,
                first_version=min(e.at_version for e in group),
                decisions=len(group),
                raw_bytes=raw,
                data=data,
                created_at=now,
            )
        )
    return DecisionLog.objects.bulk_create(rows) if rows else []


def client_acted(*, game_id: int, seat: int, version: int, action: Any, debug: str) -> bool:
    """An API-client bot's action, applied: kept with its latency, counted from the moment
    its decision came (the log entry before it, or the game's start). False if the seat is
    no bot's (a person's, or a bot seat without a version)."""
    control = (
        SeatControl.objects.filter(seat__game_id=game_id, seat__number=seat)
        .values_list("version_id", flat=True)
        .first()
    )
    if control is None:
        return False
    began = game_selectors.decision_began(game_id, version)
    latency = None if began is None else int((timezone.now() - began).total_seconds() * 1000)
    record(Entry(game_id, seat, control, version, None, action, latency, debug=debug_note(debug)))
    return True


def on_bot_acted(sender: object, **kwargs: Any) -> None:
    """games.signals.bot_acted's receiver (bots.apps)."""
    client_acted(
        game_id=kwargs["game_id"],
        seat=kwargs["seat"],
        version=kwargs["version"],
        action=kwargs["action"],
        debug=kwargs["debug"],
    )


# --- reading -------------------------------------------------------------------------------


def lines(game_id: int, seats: Iterable[int]) -> list[dict[str, Any]]:
    """Every kept decision of these seats in the game, in the order they were made."""
    rows = DecisionLog.objects.filter(game_id=game_id, seat__in=list(seats)).order_by(
        "first_version", "id"
    )
    found = [line for row in rows for line in decode(row.data)]
    return sorted(found, key=lambda line: (line["version"], line["seat"]))


def bot_seats(game_id: int, bot_id: int) -> list[int]:
    """The seats one bot's versions played in the game (with a kept decision)."""
    return sorted(
        set(
            DecisionLog.objects.filter(game_id=game_id, version__bot_id=bot_id).values_list(
                "seat", flat=True
            )
        )
    )


class ReplayReader:
    """games.decision_logs' reader (bots.apps): the viewer's own bots' lines, by step."""

    def shown(self, game_id: int, user: object) -> Shown:
        """Nothing for a visitor, or anyone whose bots kept no decision in the game."""
        if not isinstance(user, User) or not user.is_authenticated:
            return Shown()
        owned = list(
            DecisionLog.objects.filter(game_id=game_id, version__bot__owner=user)
            .values_list("seat", "version__bot__name")
            .distinct()
        )
        if not owned:
            return Shown()
        by_step: dict[int, list[dict[str, Any]]] = {}
        for line in lines(game_id, {seat for seat, _ in owned}):
            by_step.setdefault(line["version"] + 1, []).append(line)
        names = sorted({name for _, name in owned}, key=str.lower)
        downloads = [
            (name, reverse("bot-decision-log", kwargs={"name": name, "game": game_id}))
            for name in names
        ]
        return Shown(by_step, downloads)


def bot_lines(*, bot: Bot, game_id: int, user: User) -> list[dict[str, Any]]:
    """The kept decisions of ``bot`` in a game, for its owner only (``permission_denied``
    for anyone else, staff too: the notes are the owner's); ``no_decision_log`` when it
    kept none there (it made no decision, or they expired)."""
    if bot.owner_id != user.pk:
        raise DomainError(
            "permission_denied", "Only the bot's owner reads its decision log.", status=403
        )
    seats = bot_seats(game_id, bot.pk)
    if not seats:
        message = (
            f"{bot.name} has no decision log in game {game_id}: it made no decision there, "
            f"or the log is older than {settings.DECISION_LOG_DAYS} days."
        )
        raise DomainError(
            "no_decision_log", message, status=404, details={"game": game_id, "bot": bot.pk}
        )
    return lines(game_id, seats)


def download(found: Iterable[dict[str, Any]], filename: str) -> HttpResponse:
    """Lines as an NDJSON download (the API's and the page's), never cached."""
    body = b"".join(map(ndjson_line, found))
    response = HttpResponse(body, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


# --- retention -----------------------------------------------------------------------------


def expire(now: datetime) -> int:
    """Delete the logs written more than DECISION_LOG_DAYS before ``now``; how many rows."""
    cutoff = now - timedelta(days=settings.DECISION_LOG_DAYS)
    deleted = 0
    while True:
        ids = list(
            DecisionLog.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True)[
                :EXPIRE_BATCH
            ]
        )
        if not ids:
            return deleted
        deleted += DecisionLog.objects.filter(pk__in=ids).delete()[0]
