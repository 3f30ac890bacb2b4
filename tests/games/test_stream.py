"""The game stream: a seat hears its decisions as they arise, spectators every change.

The streams run where they run in production: a real uvicorn process serving the ASGI
application against the test database, fed by Redis. Changes are made in this process
with the services (committed: ``transactional_db``), and announced after their commit,
exactly as the web and worker processes do.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connections
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_create
from games import services, store
from games.engine import RuleSet, action_to_json, legal_actions, observe
from games.models import Game
from tests.asgi import SERVED, uvicorn_serving

pytestmark = pytest.mark.usefixtures("transactional_db")
KEEPALIVE_SECONDS = 1
STREAMS_PER_USER = 3


def _serve(redis_url: str) -> Iterator[str]:
    settings = {
        "REDIS_URL": redis_url,
        "STREAM_KEEPALIVE_SECONDS": str(KEEPALIVE_SECONDS),
        "STREAMS_PER_USER": str(STREAMS_PER_USER),
    }
    with uvicorn_serving(settings) as base:
        yield base


@pytest.fixture(scope="session")
def stream_server(django_db_setup: None) -> Iterator[str]:
    """The ASGI application under uvicorn, with Redis: pushes reach the streams."""
    yield from _serve(settings.REDIS_URL)


@pytest.fixture(scope="session")
def polling_stream_server(django_db_setup: None) -> Iterator[str]:
    """The same without Redis (``make run``'s embedded defaults): streams poll the rows."""
    yield from _serve("")


class Stream:
    """One open stream, read by a thread into a queue of parsed lines."""

    def __init__(self, base: str, game: Game, user: User | None, query: str = "") -> None:
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.keepalives = 0
        self.status: int | None = None
        self.ready = threading.Event()
        url = f"{base}/api/v1/games/{game.pk}/stream/{query}"
        headers = {}
        if user is not None:  # None: a signed-out visitor
            headers["Authorization"] = f"Bearer {token_create(user=user, name='stream')[1]}"
        self._client: httpx.Client
        self._thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self._thread.start()
        assert self.ready.wait(10), "the stream did not answer"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            self._client = httpx.Client(timeout=30)
            with self._client, self._client.stream("GET", url, headers=headers) as response:
                self.status = response.status_code
                self.ready.set()
                for text in response.iter_lines():
                    if text:
                        self.lines.put(json.loads(text))
                    else:
                        self.keepalives += 1
        except httpx.HTTPError:
            pass  # closed by this side: close()
        finally:
            self.ready.set()
            self.lines.put(None)  # the stream closed

    def close(self) -> None:
        """Hang up (the server must notice and let go of the stream)."""
        self._client.close()
        self._thread.join(timeout=10)

    def next(self, timeout: float = 10) -> dict[str, Any] | None:
        """The next line (None once the server has closed the stream)."""
        return self.lines.get(timeout=timeout)

    def first(self) -> dict[str, Any]:
        """The first line, which every open stream sends at once."""
        line = self.next()
        assert line is not None
        return line

    def until(self, kind: str, timeout: float = 10) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The next line of ``kind``, and the lines that came before it."""
        before: list[dict[str, Any]] = []
        give_up = time.monotonic() + timeout
        while True:
            line = self.next(max(0.01, give_up - time.monotonic()))
            assert line is not None, f"the stream closed before a {kind} line: {before}"
            if line["type"] == kind:
                return line, before
            before.append(line)

    def closed(self, timeout: float = 10) -> list[dict[str, Any]]:
        """Every line until the server closes the stream."""
        rest = []
        while (line := self.next(timeout)) is not None:
            rest.append(line)
        return rest


Opener = Callable[..., Stream]


@pytest.fixture
def open_stream() -> Iterator[Opener]:
    """Open a Stream (same arguments); every stream a test opened is hung up after it."""
    streams: list[Stream] = []

    def opener(*args: Any) -> Stream:
        stream = Stream(*args)
        streams.append(stream)
        return stream

    yield opener
    for stream in streams:
        stream.close()


def three_seats(alice: User, bob: User, carol: User, staff: User) -> Game:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    services.game_join(game=game, user=bob)
    services.game_join(game=game, user=carol)
    return services.game_start(game=game, by=staff, seed=7)


def act(game: Game, users: dict[int, User]) -> int:
    """The seat to act plays its first legal action; returns that seat."""
    game.refresh_from_db()
    state = store.load_state(game)
    action = action_to_json(legal_actions(state)[0], state.rules.edition)
    services.action_submit(
        game_id=game.pk, user=users[state.to_act], action=action, version=game.version
    )
    return state.to_act


def test_a_seat_hears_its_own_decisions_the_moment_they_arise(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    users = {0: alice, 1: bob, 2: carol}
    streams = {n: open_stream(stream_server, game, user) for n, user in users.items()}
    first = {n: s.first() for n, s in streams.items()}
    opening, _ = streams[0].until("decision")

    for _ in range(6):
        act(game, users)
        game.refresh_from_db()
        seat = game.to_act
        assert seat is not None
        decision, skipped = streams[seat].until("decision", timeout=5)

        assert decision["decision"]["version"] == game.version
        assert skipped == []  # a seat gets no updates unless it asks
        expected = observe(store.load_state(game), seat)
        assert decision["decision"]["observation"] == json.loads(json.dumps(expected))

    assert {n: line["type"] for n, line in first.items()} == {0: "game", 1: "game", 2: "game"}
    assert opening["decision"]["seat"] == 0
    for n, stream in streams.items():  # nobody heard another seat's decision
        while not stream.lines.empty():
            line = stream.lines.get()
            assert line is None or line["type"] != "decision" or line["decision"]["seat"] == n


def test_a_spectator_follows_every_change_and_never_hears_a_decision(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    users = {0: alice, 1: bob, 2: carol}
    watcher = open_stream(stream_server, game, staff)  # staff has no seat here
    assert watcher.first()["type"] == "game"

    actors = [act(game, users) for _ in range(4)]
    updates = [watcher.until("update", timeout=5)[0] for _ in range(4)]

    assert [u["game"]["version"] for u in updates] == [1, 2, 3, 4]
    assert [u["entries"][0]["seat"] for u in updates] == actors
    assert all("action" not in u["entries"][0] for u in updates)
    assert all(line["type"] != "decision" for line in watcher.lines.queue if line)


def test_a_seat_can_ask_for_every_update_as_well(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    users = {0: alice, 1: bob, 2: carol}
    bobs = open_stream(stream_server, game, bob, "?updates=true")
    bobs.first()

    act(game, users)  # alice (seat 0) opens; bob is next
    update, _ = bobs.until("update")
    decision, _ = bobs.until("decision")

    assert update["game"]["version"] == 1
    assert decision["decision"]["version"] == 1


def test_the_stream_ends_with_the_game(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    stream = open_stream(stream_server, game, carol)
    stream.first()

    services.game_abort(game=game, by=staff, reason="test")
    rest = stream.closed()

    assert rest[-1]["type"] == "end"
    assert rest[-1]["game"]["status"] == "aborted"


def test_a_stream_on_an_ended_game_says_so_and_closes(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    services.game_abort(game=game, by=staff, reason="test")

    lines = open_stream(stream_server, game, alice).closed()

    assert [line["type"] for line in lines] == ["game", "end"]


def test_a_lost_push_is_caught_up_at_the_next_keepalive(
    open_stream: Opener,
    stream_server: str,
    alice: User,
    bob: User,
    carol: User,
    staff: User,
    settings: Settings,
) -> None:
    game = three_seats(alice, bob, carol, staff)
    users = {0: alice, 1: bob, 2: carol}
    bobs = open_stream(stream_server, game, bob)
    bobs.first()
    settings.REDIS_URL = ""  # this process announces nothing: the push never happens

    act(game, users)  # bob's turn now
    decision, _ = bobs.until("decision", timeout=KEEPALIVE_SECONDS * 5)

    assert decision["decision"]["version"] == 1
    assert bobs.keepalives >= 1


def test_streams_work_without_redis_by_polling_the_rows(
    open_stream: Opener,
    polling_stream_server: str,
    alice: User,
    bob: User,
    carol: User,
    staff: User,
) -> None:
    game = three_seats(alice, bob, carol, staff)
    users = {0: alice, 1: bob, 2: carol}
    bobs = open_stream(polling_stream_server, game, bob)
    bobs.first()

    act(game, users)
    decision, _ = bobs.until("decision")

    assert decision["decision"]["seat"] == 1


def test_the_development_server_streams_too(
    api_as: Callable[[User], APIClient], alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)

    response = api_as(alice).get(f"/api/v1/games/{game.pk}/stream/")  # WSGI, like runserver
    lines = iter(response.streaming_content)  # type: ignore[attr-defined]
    first, second = json.loads(next(lines)), json.loads(next(lines))
    response.close()

    assert response["Content-Type"] == "application/x-ndjson"
    assert (first["type"], second["type"]) == ("game", "decision")
    assert second["decision"]["seat"] == 0


# --- refusals ------------------------------------------------------------------------


def get(base: str, path: str, user: User | None = None, method: str = "GET") -> httpx.Response:
    headers = {}
    if user is not None:
        headers["Authorization"] = f"Bearer {token_create(user=user, name='t')[1]}"
    return httpx.request(method, f"{base}{path}", headers=headers, timeout=10)


def test_refusals_are_json_with_a_stable_code(
    stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    path = f"/api/v1/games/{game.pk}/stream/"

    bad_token = httpx.get(
        f"{stream_server}{path}", headers={"Authorization": "Bearer nope"}, timeout=10
    )
    missing = get(stream_server, "/api/v1/games/999999999/stream/", alice)
    past = get(stream_server, "/api/v1/games/99999999999999999999999/stream/", alice)
    unknown = get(stream_server, path + "?after=3", alice)
    mistyped = get(stream_server, path + "?updates=maybe", alice)
    posted = get(stream_server, path, alice, method="POST")

    assert (bad_token.status_code, bad_token.json()["code"]) == (401, "authentication_failed")
    assert bad_token.headers["WWW-Authenticate"] == 'Bearer realm="api"'
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    assert (past.status_code, past.json()["code"]) == (404, "not_found")
    assert (unknown.status_code, unknown.json()["code"]) == (400, "invalid")
    assert unknown.json()["details"]["after"][0]["code"] == "unknown_field"
    assert (mistyped.status_code, mistyped.json()["code"]) == (400, "invalid")
    assert mistyped.json()["details"]["updates"][0]["code"] == "invalid"
    assert (posted.status_code, posted.json()["code"]) == (405, "method_not_allowed")


def test_a_user_holds_a_bounded_number_of_streams(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    held = [open_stream(stream_server, game, alice) for _ in range(STREAMS_PER_USER)]
    for stream in held:
        stream.first()

    refused = get(stream_server, f"/api/v1/games/{game.pk}/stream/", alice)
    others = open_stream(stream_server, game, bob)

    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_streams")
    assert others.status == 200
    services.game_abort(game=game, by=staff, reason="test")  # closes them all
    for stream in [*held, others]:
        assert stream.closed()[-1]["type"] == "end"


def test_signed_out_visitors_hold_a_bounded_number_of_streams_per_address(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = three_seats(alice, bob, carol, staff)
    held = [open_stream(stream_server, game, None) for _ in range(STREAMS_PER_USER)]
    for stream in held:
        assert stream.status == 200
        assert stream.first()["type"] == "game"

    refused = get(stream_server, f"/api/v1/games/{game.pk}/stream/")
    signed_in = open_stream(stream_server, game, alice)  # her own count, not the address's

    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_streams")
    assert refused.json()["details"] == {"limit": STREAMS_PER_USER}
    assert signed_in.status == 200
    act(game, {0: alice, 1: bob, 2: carol})
    for stream in held:  # a signed-out visitor is a spectator: every update, no decision
        update, before = stream.until("update")
        assert before == []
        assert update["game"]["version"] == game.version + 1
    services.game_abort(game=game, by=staff, reason="test")
    for stream in held:
        assert stream.closed()[-1]["type"] == "end"


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_an_open_stream_holds_no_thread_of_its_own(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    """Django would give each request a thread for its life (asgiref's per-request
    context), idle for as long as a stream stays open: ~80 KB each (cya_site.handlers)."""
    game = three_seats(alice, bob, carol, staff)
    people = [alice, bob, carol, staff]

    def open_all() -> list[Stream]:
        streams = [open_stream(stream_server, game, p) for p in people for _ in range(3)]
        for stream in streams:
            assert stream.first()["type"] == "game"
        return streams

    for stream in open_all():  # the pool's threads for the streams' reads start now
        stream.close()
    time.sleep(1)  # each hung-up stream is let go
    before = _threads(SERVED[stream_server])
    streams = open_all()
    during = _threads(SERVED[stream_server])

    assert during - before < len(streams) // 2, (before, during)
    act(game, {0: alice, 1: bob, 2: carol})  # and they still hear the game
    for stream in streams[-3:]:  # staff's, a spectator's: every update
        update, _ = stream.until("update")
        assert update["game"]["version"] == game.version + 1


# --- who may follow a game, and what each hears ----------------------------------------
# The stream's row of the permission matrix (tests/games/test_permissions.py) and its
# hidden-information check (tests/games/test_hidden_information.py): it needs a live
# server, so it lives here.


def _values(tree: Any, key: str) -> Iterator[Any]:
    """Every value stored under ``key`` anywhere in a JSON tree."""
    if isinstance(tree, dict):
        for name, value in tree.items():
            if name == key:
                yield value
            yield from _values(value, key)
    elif isinstance(tree, list):
        for value in tree:
            yield from _values(value, key)


def test_anyone_may_follow_a_game_and_only_a_seat_hears_its_hand(
    open_stream: Opener, stream_server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=carol)
    game = services.game_start(game=game, by=staff, seed=7)
    users = {0: alice, 1: carol}

    owner = open_stream(stream_server, game, alice)
    spectators = {"other": open_stream(stream_server, game, bob)}
    spectators["staff"] = open_stream(stream_server, game, staff)
    spectators["signed out"] = open_stream(stream_server, game, None)
    for stream in [owner, *spectators.values()]:
        assert stream.status == 200
        assert stream.first()["type"] == "game"
    seen: dict[int, Any] = {}
    while len(seen) < 6:  # alice's decisions, each checked against the state at the time
        game.refresh_from_db()
        if game.to_act == 0:
            decision, _ = owner.until("decision")
            seen[game.version] = decision["decision"]["observation"]
            expected = observe(store.load_state(game), 0)
            assert seen[game.version] == json.loads(json.dumps(expected))
        act(game, users)
    services.game_abort(game=game, by=staff, reason="test")
    heard = {role: stream.closed() for role, stream in spectators.items()}

    for role, lines in heard.items():
        assert lines[-1]["type"] == "end", role
        assert {line["type"] for line in lines} == {"update", "end"}, role  # never a decision
        assert list(_values(lines, "hand")) == [], role
        assert list(_values(lines, "seed")) == [], role
        assert list(_values(lines, "action")) == [], role  # a pair would name the tucked card
    for observation in seen.values():  # the seat's own hand, never another's
        assert "hands" not in observation
        assert list(_values(observation, "seed")) == []


def test_streams_on_one_game_share_their_keepalive_read(
    monkeypatch: pytest.MonkeyPatch, alice: User, bob: User, carol: User, staff: User
) -> None:
    """A crowd on one game opens together, so its keep-alive checks come together: they
    cost one read of the game's row, not one a stream (games.api.stream._row)."""
    from games.api import stream

    game = three_seats(alice, bob, carol, staff)
    reads: list[int] = []
    read = stream._read_row

    async def counted(game_id: int) -> stream.Row:
        reads.append(game_id)
        return await read(game_id)

    monkeypatch.setattr(stream, "_read_row", counted)

    async def crowd() -> list[stream.Row]:
        together = await asyncio.gather(*(stream._row(game.pk) for _ in range(50)))
        await asyncio.sleep(stream.ROW_SHARED_SECONDS + 0.1)
        later = await stream._row(game.pk)  # past the shared window: read afresh
        return [*together, later]

    loop = asyncio.new_event_loop()  # as a stream under WSGI: its reads on one thread
    loop.set_default_executor(ThreadPoolExecutor(1))
    try:
        rows = loop.run_until_complete(crowd())
    finally:
        loop.run_until_complete(loop.run_in_executor(None, connections.close_all))
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()

    assert reads == [game.pk, game.pk]
    assert set(rows) == {(game.version, "active", game.to_act)}
