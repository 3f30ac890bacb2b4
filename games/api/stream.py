"""``GET /api/v1/games/{id}/stream/``: a game as it happens, one JSON object per line.

The pull transport for bots and live viewers (Lichess's bot API model): open one stream
per game and answer each ``decision`` line with ``POST /games/{id}/actions/``. No request
is made to learn that it is your turn, so a decision costs one request, not two.

Lines (``application/x-ndjson``; an empty line every ``STREAM_KEEPALIVE_SECONDS``):

- ``{"type": "game", "game": GameStatus}``: first, where the game stands;
- ``{"type": "decision", "decision": Decision}``: your seat must act (seats only);
- ``{"type": "update", "game": GameStatus, "entries": [LogEntry, ...]}``: the game
  changed; spectators always get these, seats with ``?updates=true``;
- ``{"type": "end", "game": GameStatus}``: the game finished or was aborted; the stream
  closes.

This is an async view: served by the ASGI application (``cya_site.asgi``, uvicorn), one
event loop holds thousands of streams. Every stream of a process shares one Redis
subscription (games.api.hub); the lines come ready-made from the process that changed the game
(games.feed), so forwarding one costs no database read. Missed messages cannot go
unnoticed: at every keep-alive the stream compares the game's version with the last it
saw and catches up from the database. Without Redis it polls the database instead.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar, cast

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, connections
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.authentication import BearerTokenAuthentication
from accounts.models import User
from cya_site import metrics
from cya_site.errors import DomainError, render_error
from cya_site.handlers import holds_connection
from cya_site.throttling import client_address
from games import feed, notify, selectors, store
from games.api.hub import RESYNC, Subscriber, loop_hub
from games.api.hub import join as hub_join
from games.api.serializers import StreamQuerySerializer
from games.api.waits import Place, admit, needs_asgi, refusal
from games.models import Game, Seat

ENDED = frozenset({Game.Status.FINISHED, Game.Status.ABORTED})
POLL_SECONDS = 0.5  # without Redis
CATCH_UP_LIMIT = 500  # log entries an update built from the database carries at most
AUTHENTICATE = 'Bearer realm="api"'

P = ParamSpec("P")
R = TypeVar("R")


# --- database reads (run in the thread pool: a stream holds no connection) -------------


def _db(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run ``fn`` in the event loop's thread pool: a stream holds no connection while it
    waits. Those threads serve no requests, so nothing else retires their connections:
    each call first drops one that is too old or broken (CONN_MAX_AGE, health checks)."""

    @functools.wraps(fn)
    def fresh(*args: P.args, **kwargs: P.kwargs) -> R:
        close_old_connections()
        return fn(*args, **kwargs)

    return sync_to_async(fresh, thread_sensitive=False)


def _open(request: HttpRequest, game_id: int) -> tuple[str, int | None, int | None]:
    """Who asks (``_client``), their seat in the game (None for a spectator, and for
    anyone signed out; 404 for no such game) and their account (None signed out). Its
    connection is closed before the stream starts: under WSGI this runs in a thread that
    nothing else would ever retire."""
    try:
        close_old_connections()
        user = _user(request)
        number = None
        if user is not None:
            seat = Seat.objects.filter(game_id=game_id, user=user)
            number = seat.values_list("number", flat=True).first()
        if number is None and not Game.objects.filter(pk=game_id).exists():
            raise DomainError("not_found", "No such game.", status=404)
        return _client(request, user), number, None if user is None else user.pk
    finally:
        connections.close_all()


def _user(request: HttpRequest) -> User | None:
    """The bearer token's user, else the session's, else None: anyone may watch a game
    (every game is public, as the REST reads are). A token that is not valid is still
    refused (401), rather than quietly watched with as a spectator."""
    found = BearerTokenAuthentication().authenticate(request)  # type: ignore[arg-type]
    if found is not None:
        return found[0]
    user = request.user
    if isinstance(user, User) and user.is_active:
        return user
    return None


def _client(request: HttpRequest, user: User | None) -> str:
    """Whose streams count together against ``STREAMS_PER_USER``: a user's, or, signed
    out, the client address's (as the throttles tell it, ``NUM_PROXIES``)."""
    if user is not None:
        return f"user:{user.pk}"
    return f"ip:{BaseThrottle().get_ident(cast(Request, request))}"


@_db
def _current(
    game_id: int, seat: int | None, after: int | None
) -> tuple[Game, bytes | None, bytes] | None:
    """The game now: its row, the seat's decision line if it must act, and an ``update``
    line with the log entries after version ``after`` (none when ``after`` is None).
    None once the game is gone (deleted by staff)."""
    game = Game.objects.select_related("snapshot").filter(pk=game_id).first()
    if game is None:
        return None
    decision = None
    if seat is not None and game.status == Game.Status.ACTIVE and game.to_act == seat:
        bank = Seat.objects.filter(game=game, number=seat).values_list("time_bank_ms", flat=True)
        decision = feed.decision_line(
            game.pk, store.load_state(game), deadline=game.deadline, time_bank_ms=bank.first()
        )
    entries = [] if after is None else selectors.public_events(game, after, CATCH_UP_LIMIT)
    return game, decision, feed.update_line(game, entries)


@_db
def _read_row(game_id: int) -> tuple[int, str, int | None] | None:
    """The game's (version, status, to_act): one cheap read; None once it is gone."""
    return Game.objects.filter(pk=game_id).values_list("version", "status", "to_act").first()


Row = tuple[int, str, int | None] | None
ROW_SHARED_SECONDS = 0.5
_reads: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[int, tuple[float, asyncio.Future[Row]]]
] = weakref.WeakKeyDictionary()


async def _row(game_id: int) -> Row:
    """``_read_row``, one read shared by the streams of this loop that ask for the same
    game within ROW_SHARED_SECONDS: a crowd on one game opens together, so its keep-alive
    checks (and its polls without Redis) come together too, and cost one read, not one a
    stream. A read half a second old only delays catching up on a lost push."""
    loop = asyncio.get_running_loop()
    reads = _reads.setdefault(loop, {})
    now = loop.time()
    shared = reads.get(game_id)
    if shared is None or now - shared[0] > ROW_SHARED_SECONDS or shared[1].cancelled():
        if len(reads) > 1000:  # forget the old reads of games nobody asks about now
            for old in [k for k, (at, _) in reads.items() if now - at > ROW_SHARED_SECONDS]:
                del reads[old]
        shared = reads[game_id] = (now, asyncio.ensure_future(_read_row(game_id)))
    return await asyncio.shield(shared[1])


# --- the view ---------------------------------------------------------------------------


def _updates_param(request: HttpRequest) -> bool:
    """``?updates=true``: every change, not only the seat's own decisions. Checked like
    every other query (an unknown parameter is ``unknown_field``)."""
    query = StreamQuerySerializer(data=request.GET)
    query.is_valid(raise_exception=True)
    return bool(query.validated_data["updates"])


@holds_connection
@csrf_exempt  # it changes nothing; a POST gets the JSON 405, not CSRF's HTML 403
async def game_stream(request: HttpRequest, pk: int) -> HttpResponseBase:
    """Open a game's stream (see the module docstring for its lines)."""
    if request.method != "GET":
        return render_error(exceptions.MethodNotAllowed(request.method or ""))
    asgi = isinstance(request, ASGIRequest)
    try:
        updates = _updates_param(request)
        client, seat, account = await sync_to_async(_open, thread_sensitive=False)(request, pk)
        if settings.REDIS_URL and loop_hub().open_streams(client) >= settings.STREAMS_PER_USER:
            raise DomainError(
                "too_many_streams",
                f"You have {settings.STREAMS_PER_USER} streams open: close one first.",
                {"limit": settings.STREAMS_PER_USER},
                status=429,
            )
        if not asgi and not settings.WAITS_ON_WSGI:
            raise needs_asgi(request)
        place = admit(client_address(request), account)
    except Exception as error:  # rendered in the one error shape, or re-raised (a 500)
        refused = refusal(error)
        if refused.status_code == 401:
            refused["WWW-Authenticate"] = AUTHENTICATE
        return refused
    lines = _lines(pk, client, seat, updates or seat is None, place)
    # a WSGI server (the tests' live server) must iterate synchronously
    content = lines if asgi else _blocking(lines)
    response = StreamingHttpResponse(content, content_type="application/x-ndjson")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # proxies must pass each line on at once
    # a stream closed before its first line lets its place go too: Django's close() of a
    # response calls its resource closers (a private list the stubs do not know)
    response._resource_closers.append(place.release)  # type: ignore[attr-defined]
    return response


def _blocking(lines: AsyncGenerator[bytes, None]) -> Iterator[bytes]:
    """The lines for a WSGI server, which must iterate synchronously: each is awaited on
    an event loop of this stream's own, in the thread that serves it (which a WSGI
    server gives each stream for its lifetime: fine for development, not for many
    streams; production serves streams from the ASGI application)."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(ThreadPoolExecutor(1))  # the stream's database reads
    try:
        while True:
            try:
                yield loop.run_until_complete(anext(lines))
            except StopAsyncIteration:
                return
    finally:
        loop.run_until_complete(lines.aclose())
        loop.run_until_complete(loop.run_in_executor(None, connections.close_all))
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


async def _lines(
    game_id: int, client: str, seat: int | None, forward: bool, place: Place
) -> AsyncGenerator[bytes, None]:
    """The stream's lines until the game ends (or the client goes away); its ``place``
    under the caps is let go at the end."""
    channels = []
    if forward:  # spectators, and seats that asked for every update
        channels.append(notify.channel(game_id))
    if seat is not None:  # the seat's decisions and the game's end
        channels.append(notify.seat_channel(game_id, seat))
    subscriber = Subscriber(client, channels)
    try:
        hub = await hub_join(subscriber)  # before reading the rows: no change falls in between
    except BaseException:
        place.release()
        raise
    keepalive = settings.STREAM_KEEPALIVE_SECONDS
    loop = asyncio.get_running_loop()
    metrics.STREAMS_OPEN.inc()
    try:
        now = await _current(game_id, seat, None)
        if now is None:
            return
        game, decision, _ = now
        seen = _Seen(seat, forward, (game.version, game.status))
        first = [feed.line({"type": "game", "game": feed.game_status(game)})]
        if decision is not None:
            seen.decided = game.version
            first.append(decision)
        if game.status in ENDED:
            first.append(feed.end_line(game))
        # an open stream keeps no game row (its state is kilobytes): only what it has shown
        del now, game, decision
        for line in first:
            yield line
        if seen.status in ENDED:
            return
        quiet_since = loop.time()
        while not seen.ended:
            if hub is None:  # no pushes: poll the rows
                await asyncio.sleep(POLL_SECONDS)
                item: bytes | None = RESYNC if seen.behind(await _row(game_id)) else None
            else:
                item = await _next(subscriber, keepalive - (loop.time() - quiet_since))
            if item is None:
                if loop.time() - quiet_since >= keepalive:  # keep the connection open
                    yield b"\n"
                    quiet_since = loop.time()
                    if seen.behind(await _row(game_id)):  # a push went missing: catch up
                        item = RESYNC
                if item is None:
                    continue
            if item == RESYNC:
                if hub is not None and hub.broken:
                    hub = await hub_join(subscriber)
                caught = await _current(game_id, seat, seen.version)
                if caught is None:
                    return  # the game was deleted
                lines = seen.caught_up(*caught)
                del caught  # the row again: not kept while the stream waits
            else:
                lines = seen.pushed(item)
            for line in lines:
                yield line
                quiet_since = loop.time()
    finally:
        metrics.STREAMS_OPEN.dec()
        place.release()
        if hub is not None:
            await hub.leave(subscriber)


class _Seen:
    """What a stream has shown: the game's (version, status), the version of the last
    decision it sent, and whether it sent the end. Lines about older changes are dropped
    (a push can come after the database read that already covered it)."""

    def __init__(self, seat: int | None, forward: bool, game: tuple[int, str]) -> None:
        self.seat = seat
        self.forward = forward
        self.version, self.status = game
        self.decided = -1
        self.ended = False

    def behind(self, row: tuple[int, str, int | None] | None) -> bool:
        """Whether the game's row holds something this stream has not shown."""
        if row is None or row[1] in ENDED:
            return True
        version, status, to_act = row
        if self.forward and (version, status) != (self.version, self.status):
            return True
        return status == Game.Status.ACTIVE and to_act == self.seat and version > self.decided

    def pushed(self, item: bytes) -> list[bytes]:
        """The lines a pushed message makes."""
        kind, version, status, _, line = notify.message(item)
        if kind == b"decision":
            if version <= self.decided or version < self.version:
                return []
            self.decided = self.version = version
            return [line]
        if kind == b"end":
            self.ended = True
            return [line]
        latest = (version, status)  # an update
        if version < self.version or latest == (self.version, self.status):
            return []
        self.version, self.status = latest
        if status in ENDED:
            self.ended = True
            game = orjson.loads(line)["game"]
            return [line, feed.line({"type": "end", "game": game})]
        return [line]

    def caught_up(self, game: Game, decision: bytes | None, update: bytes) -> list[bytes]:
        """The lines that bring the stream up to the game's rows."""
        lines = []
        if self.forward and (game.version, game.status) != (self.version, self.status):
            lines.append(update)
        self.version, self.status = game.version, game.status
        if decision is not None and game.version > self.decided:
            self.decided = game.version
            lines.append(decision)
        if game.status in ENDED:
            self.ended = True
            lines.append(feed.end_line(game))
        return lines


async def _next(subscriber: Subscriber, wait: float) -> bytes | None:
    """The next pushed line (or RESYNC), or None after ``wait`` seconds of quiet. A line
    already queued is taken at once; otherwise the wait runs in this task, under a
    deadline (``asyncio.wait_for`` would wrap it in a task of its own, for every line)."""
    queue = subscriber.queue
    if not queue.empty():
        return queue.get_nowait()
    try:
        async with asyncio.timeout(max(wait, 0.01)):
            return await queue.get()
    except TimeoutError:
        return None
