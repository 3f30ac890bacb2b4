"""Waits on the event loop: ``GET /api/v1/games/{id}/wait/``, and the caps every wait and
stream is admitted under.

The long-poll is an async view in front of the DRF action (``GameViewSet.wait``): the
action answers at once, with DRF's authentication, validation and throttling, and when
there is something to wait for it leaves a ``WaitFor`` on the request instead of waiting.
This view then waits on the event loop (one Redis subscription per loop, games.api.hub;
polling the row without Redis), with no thread held, and answers the game as it is then.
A client that goes away cancels the view (Django's ASGI handler), which lets go of its
place at once.

The WSGI server never waits: there the view answers 421 ``wait_needs_asgi``, pointing at
the ASGI server (docs/operations.md), unless ``WAITS_ON_WSGI`` is set (the development
and test servers, which hold a thread per wait).

Caps (``admitted``): open waits and streams together, per client address
(``WAITS_PER_ADDRESS``) and per signed-in account (``WAITS_PER_ACCOUNT``), refused 429
``too_many_waits`` with ``Retry-After``; per process (``WAITS_PER_PROCESS``), refused 503
``server_busy`` instead of queueing.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from rest_framework.response import Response

from cya_site.errors import DomainError, render_error
from cya_site.handlers import holds_connection
from cya_site.throttling import client_address
from games import notify
from games.api.hub import RESYNC, Hub, Subscriber, existing_hub
from games.api.hub import join as hub_join
from games.models import Game

P = ParamSpec("P")
R = TypeVar("R")
POLL_SECONDS = 0.5  # without Redis
RETRY_AFTER_SECONDS = 5  # what a client refused by a cap is told to wait
WAIT_FOR = "cya_wait_for"  # the request attribute the DRF action leaves a WaitFor in
HEARD = "cya_wait_heard"  # the request attribute a Row the hub last heard of is given in
Row = tuple[int, str, int | None]  # a game's (version, status, seat to act)


class WaitFor(NamedTuple):
    """What the DRF action found worth waiting for: a version past ``after``, a status
    other than ``status``, for at most ``timeout`` seconds; ``seen`` is the game's
    ``Row`` as the action read it."""

    game_id: int
    seat: int | None
    after: int
    status: str
    timeout: float
    seen: Row


# --- caps -------------------------------------------------------------------------------


class _Open:
    """The waits and streams open in this process, by client address and by account."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # one event loop in production; a thread each in dev
        self.by_key: Counter[str] = Counter()
        self.total = 0


_open = _Open()


class Place:
    """One open wait's or stream's place under the caps, until ``release``."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.held = True

    def release(self) -> None:
        """Let the place go (again: nothing)."""
        with _open.lock:
            if not self.held:
                return
            self.held = False
            _open.by_key.subtract(self.keys)
            for key in self.keys:
                if _open.by_key[key] <= 0:
                    del _open.by_key[key]
            _open.total -= 1


def admit(address: str, account: int | None) -> Place:
    """A place for one open wait or stream; DomainError 429 ``too_many_waits`` past a
    client's cap, 503 ``server_busy`` past the process's."""
    keys = [f"address:{address}"] + ([] if account is None else [f"account:{account}"])
    limits = [settings.WAITS_PER_ADDRESS, settings.WAITS_PER_ACCOUNT]
    with _open.lock:
        if _open.total >= settings.WAITS_PER_PROCESS:
            raise DomainError(
                "server_busy",
                "This server holds as many waits as it can: try again shortly.",
                {"wait_seconds": RETRY_AFTER_SECONDS},
                status=503,
            )
        for key, limit in zip(keys, limits, strict=False):
            if _open.by_key[key] >= limit:
                raise DomainError(
                    "too_many_waits",
                    f"You have {limit} waits and streams open: close one first.",
                    {"limit": limit, "wait_seconds": RETRY_AFTER_SECONDS},
                    status=429,
                )
        _open.by_key.update(keys)
        _open.total += 1
    return Place(keys)


@contextmanager
def admitted(address: str, account: int | None) -> Iterator[None]:
    """Hold a place (``admit``) while the block runs."""
    place = admit(address, account)
    try:
        yield
    finally:
        place.release()


def account_of(request: HttpRequest) -> int | None:
    """The signed-in account's id, once DRF has authenticated the request (it sets
    ``request.user``), else None."""
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def open_waits() -> int:
    """How many waits and streams this process holds open."""
    return _open.total


def refusal(error: Exception) -> HttpResponseBase:
    """``error`` in the one error shape; a cap's with ``Retry-After``."""
    response = render_error(error)
    if response.status_code in (429, 503):
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


# --- off the event loop -------------------------------------------------------------------


def off_loop(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run ``fn`` in the event loop's thread pool: a wait holds no thread or connection
    while it waits. Those threads serve no requests, so nothing else retires their
    connections: each call first drops one that is too old or broken."""

    @functools.wraps(fn)
    def fresh(*args: P.args, **kwargs: P.kwargs) -> R:
        close_old_connections()
        return fn(*args, **kwargs)

    return sync_to_async(fresh, thread_sensitive=False)


def _row_now(game_id: int) -> Row | None:
    """The game's ``Row``; None once it is gone."""
    return Game.objects.filter(pk=game_id).values_list("version", "status", "to_act").first()


_row = off_loop(_row_now)


def answer(wait: WaitFor, row: Row | None) -> dict[str, Any]:
    """The wait's answer: the game as ``row`` found it (None: gone)."""
    if row is None:  # deleted by staff meanwhile
        raise DomainError("not_found", "No such game.", status=404)
    return wait_answer(row, wait.seat, wait.after)


def heard_row(request: HttpRequest) -> Row | None:
    """For an anonymous wait, the game's ``Row`` as last announced to this process's hub
    (``wait_view``), if the hub has heard nothing since: the DRF action then answers
    from it, without reading the game. A person's wait reads it, for their seat; so does
    one on a game no wait or stream of this process follows. A crowd watching a game
    asks again at each of its changes, and the hub heard each: those asks read nothing
    (benchmarks/live.py's crowd). A game deleted meanwhile (by staff) is answered as last
    announced by a wait that does not wait (``timeout=0``), and 404 at the end of one
    that does."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return None
    row: Row | None = getattr(request, HEARD, None)
    return row


def waiting(
    game_id: int, seat: int | None, row: Row, after: int, timeout: float
) -> tuple[dict[str, Any], WaitFor | None]:
    """A wait's answer as the game stands (``row``), and what to wait for, if anything:
    nothing when it has passed ``after`` already, it is ``seat``'s turn, the game is
    over, or ``timeout`` is 0. The DRF action and the lean answer both decide here."""
    body = wait_answer(row, seat, after)
    version, state = row[0], row[1]
    alive = state in (Game.Status.OPEN, Game.Status.ACTIVE)
    if version <= after and not body["your_turn"] and timeout > 0 and alive:
        return body, WaitFor(game_id, seat, after, state, timeout, row)
    return body, None


def heard(hub: Hub, channel: str) -> Row | None:
    """The game's ``Row`` as last announced on ``channel`` to ``hub`` (``last_heard``)."""
    data = hub.last_heard(channel)
    if data is None:
        return None
    pushed = notify.message(data)
    return pushed.version, pushed.status, pushed.to_act


def wait_answer(row: Row, seat: int | None, after: int) -> dict[str, Any]:
    """A wait's body from the game's ``Row``: where it stands, and whose turn it is. It
    is ``WaitResultSerializer``'s shape already, its values plain, so it is answered as it
    is: building the serializer for each answer cost a crowd's long-poll a sixth of its
    CPU (a profile of uvicorn in benchmarks/live.py's crowd)."""
    version, status, to_act = row
    your_turn = status == Game.Status.ACTIVE and seat is not None and to_act == seat
    return {
        "changed": version > after,
        "version": version,
        "status": status,
        "to_act": to_act,
        "your_turn": your_turn,
    }


# --- the view ---------------------------------------------------------------------------


def game_wait(action: Callable[..., HttpResponseBase]) -> Callable[..., Any]:
    """The view of ``GET /games/{id}/wait/`` in front of the DRF ``action``."""

    @holds_connection
    @csrf_exempt  # as the DRF action it fronts
    async def wait_view(request: HttpRequest, pk: int) -> HttpResponseBase:
        """Wait for a game to change (see the module docstring)."""
        asgi = isinstance(request, ASGIRequest)
        hub = existing_hub() if asgi else None
        channel = notify.channel(pk)
        mark = None if hub is None else hub.mark(channel)  # before the action reads
        row = None if hub is None else heard(hub, channel)
        if row is not None:
            setattr(request, HEARD, row)
        # under a WSGI server (tests' client, the development server) in the request's
        # own thread, where its database connection (and a test's transaction) lives
        response = await sync_to_async(action, thread_sensitive=not asgi)(request, pk=pk)
        wait: WaitFor | None = getattr(request, WAIT_FOR, None)
        if wait is None or not isinstance(response, Response):
            return response  # answered at once, or refused
        if not asgi and not settings.WAITS_ON_WSGI:
            return render_error(needs_asgi(request))
        try:
            with admitted(client_address(request), account_of(request)):
                if asgi:
                    row = await until_changed(wait, (hub, mark))
                else:  # holding this thread (WAITS_ON_WSGI: the tests' live server only)
                    row = await sync_to_async(_blocking_wait, thread_sensitive=True)(wait)
            response.data = answer(wait, row)  # rendered once this returns (Django's handler)
        except DomainError as error:
            return refusal(error)
        return response

    return wait_view


def needs_asgi(request: HttpRequest) -> DomainError:
    """The WSGI server's refusal of a wait or a stream (421 ``wait_needs_asgi``)."""
    return DomainError(
        "wait_needs_asgi",
        "Waits are served by the ASGI server (uvicorn cya_site.asgi:application): send"
        " /api/v1/games/{id}/wait/ and /stream/ there (docs/operations.md).",
        {"path": request.path},
        status=421,
    )


def _blocking_wait(wait: WaitFor) -> Row | None:
    """``until_changed`` for a WSGI server: blocking its thread (games.notify)."""
    rows: list[Row | None] = []

    def changed() -> bool:
        rows.append(_row_now(wait.game_id))
        return _moved(wait, rows[-1])

    if notify.wait_for_change(wait.game_id, changed, wait.timeout):
        return rows[-1]
    return _row_now(wait.game_id)


async def until_changed(wait: WaitFor, marked: tuple[Hub | None, int | None]) -> Row | None:
    """The game's ``Row`` once it passes ``wait.after`` or leaves ``wait.status``, or at the
    timeout (None: it is gone). Subscribed to the game's channel through the loop's hub
    with Redis; polling the row otherwise (or once Redis cannot be reached).

    A change may have come between the DRF action's read and the subscription: the row is
    read again when the wait starts, unless the hub was subscribed to the game all along
    and heard nothing since its ``mark`` (``marked``: the hub and its mark, taken before
    the action read), the common case of a crowd on one game. Then it is read only when
    told to (a resync, or a push that keeps the version: a start or an abort). A push of
    a newer version is answered as it is: it is announced once committed (games.notify),
    and a wait that asks again after it hears of the next at once. So a wait of a crowd on
    one game costs one read, the DRF action's, where it cost three."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait.timeout
    channel = notify.channel(wait.game_id)
    subscriber = Subscriber(f"wait:{wait.game_id}", [channel])
    hub = await hub_join(subscriber)
    try:
        quiet = hub is not None and hub is marked[0] and hub.heard_nothing(channel, marked[1])
        row = wait.seen if quiet else await _row(wait.game_id)
        while not _moved(wait, row):
            left = deadline - loop.time()
            if left <= 0:
                return await _row(wait.game_id)
            if hub is None or hub.broken:
                await asyncio.sleep(min(POLL_SECONDS, left))
                row = await _row(wait.game_id)
                continue
            try:
                item = await asyncio.wait_for(subscriber.queue.get(), left)
            except TimeoutError:
                return await _row(wait.game_id)
            if item == RESYNC:
                row = await _row(wait.game_id)
                continue
            pushed = notify.message(item)
            if pushed.version > wait.after:
                return pushed.version, pushed.status, pushed.to_act
            if pushed.status != wait.status:  # the same version: read it to be sure
                row = await _row(wait.game_id)
        return row
    finally:
        if hub is not None:
            await hub.leave(subscriber)


def _moved(wait: WaitFor, row: Row | None) -> bool:
    return row is None or row[0] > wait.after or row[1] != wait.status
