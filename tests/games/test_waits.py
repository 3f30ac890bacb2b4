"""Waits on the event loop (games.api.waits, issue 25): the long-poll under uvicorn wakes
on a change, a client's and the process's caps answer 429 and 503 with ``Retry-After``, a
client that hangs up lets go of its place within a second, and the WSGI server refuses to
hold a thread for a wait.

The server is a real uvicorn process serving the ASGI application against the test
database (``transactional_db``), behind one trusted proxy (``NUM_PROXIES=1``), so that a
test picks a client's address with ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, cast

import httpx
import pytest
from django.db import connections
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_create
from games import notify, services, store
from games.api import waits
from games.api.hub import Subscriber, existing_hub, loop_hub
from games.api.serializers import WaitResultSerializer
from games.engine import RuleSet, action_to_json, legal_actions
from games.models import Game, Seat
from tests import asgi

pytestmark = pytest.mark.usefixtures("transactional_db")
PER_ADDRESS, PER_ACCOUNT, PER_PROCESS = 2, 1, 4


@pytest.fixture(scope="module")
def wait_server(django_db_setup: None) -> Iterator[str]:
    """uvicorn with small caps, with Redis."""
    caps = {
        "WAITS_PER_ADDRESS": str(PER_ADDRESS),
        "WAITS_PER_ACCOUNT": str(PER_ACCOUNT),
        "WAITS_PER_PROCESS": str(PER_PROCESS),
    }
    with uvicorn_serving(caps) as base:
        yield base


@contextmanager
def uvicorn_serving(settings: dict[str, str]) -> Iterator[str]:
    """uvicorn (tests.asgi) with ``settings``, behind one trusted proxy, so that a test
    picks a client's address with ``X-Forwarded-For``; its base URL."""
    proxied = {"NUM_PROXIES": "1", "THROTTLE_ANON": "100000/min", **settings}
    with asgi.uvicorn_serving(proxied) as base:
        yield base


@pytest.fixture
def game(alice: User) -> Game:
    """An open table nobody joins: a wait on it waits for its whole timeout."""
    return services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))


def an_address() -> str:
    """A client address of the test's own, so that tests never share a cap."""
    return f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"


class Waiting:
    """A wait sent on a socket of its own and held open until ``hang_up``."""

    def __init__(self, base: str, game: Game, address: str, token: str | None = None) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.socket = socket.create_connection((host, int(port)), timeout=10)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        path = f"/api/v1/games/{game.pk}/wait/?after={game.version}&timeout=30"
        self.socket.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nX-Forwarded-For: {address}\r\n"
            f"{auth}Connection: close\r\n\r\n".encode()
        )

    def hang_up(self) -> None:
        self.socket.close()


def wait(
    base: str, game: Game, address: str, token: str | None = None, timeout: float = 0.5
) -> httpx.Response:
    headers = {"X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    url = f"{base}/api/v1/games/{game.pk}/wait/"
    query = {"after": game.version, "timeout": timeout}
    return httpx.get(url, params=query, headers=headers, timeout=35)


def refused_until_held(base: str, game: Game, address: str, token: str | None = None) -> None:
    """Let the waits sent just now reach the server: until one more is refused."""
    deadline = time.monotonic() + 30  # a machine as busy as a whole suite makes it
    while wait(base, game, address, token, timeout=0.2).status_code != 429:
        assert time.monotonic() < deadline, "the held waits never counted"


def test_a_wait_wakes_when_the_game_changes(
    wait_server: str, game: Game, bob: User, carol: User, staff: User
) -> None:
    services.game_join(game=game, user=bob)
    services.game_join(game=game, user=carol, start=False)
    game.refresh_from_db()
    answers: list[httpx.Response] = []

    def waiting() -> None:
        answers.append(wait(wait_server, game, an_address(), timeout=20))

    waiter = threading.Thread(target=waiting)
    waiter.start()
    time.sleep(1)  # the wait is subscribed

    services.game_start(game=game, by=staff, seed=7)
    waiter.join(timeout=10)

    assert answers, "the wait did not wake within 10 s of the change"
    assert answers[0].status_code == 200
    assert answers[0].json()["status"] == "active"


def test_a_wait_woken_by_a_move_answers_the_move_and_whose_turn_it_is(
    wait_server: str, game: Game, alice: User, bob: User, carol: User, staff: User
) -> None:
    """Woken by a newer version, a wait answers with what was announced (games.notify
    sends the version, status and seat to act of a committed change): the seat to act
    next learns it is its turn from the same answer."""
    game, acting, action = _started(game, bob, carol, staff)
    tokens = {
        seat.number: token_create(user=cast(User, seat.user), name="waits")[1]
        for seat in game.seats.exclude(user=acting).select_related("user")
    }
    answers: dict[int, httpx.Response] = {}

    def waiting(number: int, token: str) -> None:
        answers[number] = wait(wait_server, game, an_address(), token, timeout=20)

    waiters = [threading.Thread(target=waiting, args=item) for item in tokens.items()]
    for waiter in waiters:
        waiter.start()
    time.sleep(1)  # the waits are subscribed
    services.action_submit(game_id=game.pk, user=acting, action=action, version=game.version)
    for waiter in waiters:
        waiter.join(timeout=10)
    game.refresh_from_db()

    assert sorted(answers) == sorted(tokens), "a wait did not wake within 10 s"
    for number, answer in answers.items():
        body = answer.json()
        assert body["changed"] is True
        assert (body["version"], body["status"], body["to_act"]) == (
            game.version, game.status, game.to_act
        )  # fmt: skip
        assert body["your_turn"] is (number == game.to_act)


def test_waits_wait_side_by_side_not_one_after_another(wait_server: str, game: Game) -> None:
    """Every wait runs on the event loop: a synchronous middleware in the chain once made
    each wait hold a thread through its whole timeout, one after another
    (cya_site.static)."""
    answers: list[httpx.Response] = []
    waiters = [
        threading.Thread(
            target=lambda: answers.append(wait(wait_server, game, an_address(), timeout=2))
        )
        for _ in range(PER_PROCESS - 1)
    ]
    began = time.monotonic()
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join(timeout=30)
    took = time.monotonic() - began

    assert [a.status_code for a in answers] == [200] * len(waiters)
    assert all(a.json()["changed"] is False for a in answers)  # each waited its timeout
    assert took < 2 * 2, f"{len(waiters)} waits of 2 s took {took:.1f} s together"


def test_a_client_address_past_its_cap_is_refused_429_with_retry_after(
    wait_server: str, game: Game
) -> None:
    address = an_address()
    held = [Waiting(wait_server, game, address) for _ in range(PER_ADDRESS)]
    try:
        refused_until_held(wait_server, game, address)
        refused = wait(wait_server, game, address)
        elsewhere = wait(wait_server, game, an_address())
    finally:
        for waiting in held:
            waiting.hang_up()

    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_waits")
    assert refused.json()["details"]["limit"] == PER_ADDRESS
    assert int(refused.headers["Retry-After"]) > 0
    assert elsewhere.status_code == 200  # another address has its own count


def test_an_account_past_its_cap_is_refused_from_any_address(
    wait_server: str, game: Game, bob: User
) -> None:
    token = token_create(user=bob, name="waits")[1]
    held = Waiting(wait_server, game, an_address(), token)
    try:
        refused_until_held(wait_server, game, an_address(), token)
        refused = wait(wait_server, game, an_address(), token)
    finally:
        held.hang_up()

    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_waits")
    assert refused.json()["details"]["limit"] == PER_ACCOUNT


def test_a_process_past_its_cap_answers_503_instead_of_queueing(
    wait_server: str, game: Game
) -> None:
    # One more held wait until the process is full: an earlier test's waits, hung up, may
    # still hold places for a moment, and one of these refused for them would leave the
    # process short of full once they go.
    held: list[Waiting] = []
    try:
        deadline = time.monotonic() + 30
        while (busy := wait(wait_server, game, an_address())).status_code != 503:
            assert time.monotonic() < deadline, "the process never filled up"
            assert len(held) < 2 * PER_PROCESS, "waits past the process's cap were admitted"
            held.append(Waiting(wait_server, game, an_address()))
        cheap = wait(wait_server, game, an_address(), timeout=0)  # no wait: answered
    finally:
        for waiting in held:
            waiting.hang_up()

    assert busy.json()["code"] == "server_busy"
    assert int(busy.headers["Retry-After"]) > 0
    assert cheap.status_code == 200


def test_a_client_that_hangs_up_mid_wait_frees_its_place_within_a_second(
    wait_server: str, game: Game
) -> None:
    address = an_address()
    held = [Waiting(wait_server, game, address) for _ in range(PER_ADDRESS)]
    refused_until_held(wait_server, game, address)

    held[0].hang_up()
    time.sleep(1.0)
    answer = wait(wait_server, game, address, timeout=0.2)
    held[1].hang_up()

    assert answer.status_code == 200, answer.text


def test_the_wsgi_server_refuses_to_hold_a_thread_for_a_wait(
    settings: Settings, game: Game, bob: User
) -> None:
    settings.WAITS_ON_WSGI = False  # as production's gunicorn
    client = APIClient()
    url = f"/api/v1/games/{game.pk}/wait/"

    refused = client.get(url, {"after": game.version, "timeout": 5})
    answered = client.get(url, {"after": game.version, "timeout": 0})  # nothing to wait for
    stream = client.get(f"/api/v1/games/{game.pk}/stream/")

    assert (refused.status_code, refused.json()["code"]) == (421, "wait_needs_asgi")
    assert "ASGI" in refused.json()["message"]
    assert answered.status_code == 200
    assert (stream.status_code, stream.json()["code"]) == (421, "wait_needs_asgi")


def _started(game: Game, bob: User, carol: User, staff: User) -> tuple[Game, User, dict[str, Any]]:
    """The table dealt: the game, who acts first and that seat's first legal action."""
    services.game_join(game=game, user=bob)
    services.game_join(game=game, user=carol, start=False)
    services.game_start(game=game, by=staff, seed=7)
    game.refresh_from_db()
    state = store.load_state(game)
    acting = Seat.objects.get(game=game, number=state.to_act).user
    assert acting is not None
    return game, acting, action_to_json(legal_actions(state)[0], state.rules.edition)


def _wait_for(game: Game) -> waits.WaitFor:
    """What the DRF action leaves for a spectator's wait on ``game`` as it stands."""
    row = (game.version, game.status, game.to_act)
    return waits.WaitFor(game.pk, None, game.version, game.status, 10, row)


def _on_one_thread(scenario: Callable[[], Awaitable[waits.Row | None]]) -> waits.Row | None:
    """Run ``scenario`` on an event loop whose database work (the wait's reads, the moves)
    runs on one thread, whose connection is closed at the end."""

    async def closing() -> waits.Row | None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(1))
        try:
            return await scenario()
        finally:
            hub = existing_hub()
            if hub is not None:  # its channels linger past the scenario
                await hub.close()
            await loop.run_in_executor(None, connections.close_all)

    return asyncio.run(closing())


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The games whose row a wait reads (the real read, counted)."""
    reads: list[int] = []
    real = waits._row

    async def counted(game_id: int) -> waits.Row | None:
        reads.append(game_id)
        return await real(game_id)

    monkeypatch.setattr(waits, "_row", counted)
    return reads


def test_a_wait_on_a_game_its_hub_heard_nothing_of_reads_no_row_and_answers_the_move(
    game: Game, bob: User, carol: User, staff: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another wait has kept the game's channel subscribed since before this wait's
    action read the game: nothing can have been missed, so the wait reads nothing more
    and answers the move from its announcement (a crowd's waits cost no read each)."""
    game, acting, action = _started(game, bob, carol, staff)
    reads = _counting_reads(monkeypatch)

    async def scenario() -> waits.Row | None:
        hub = loop_hub()
        other = Subscriber("other-wait", [notify.channel(game.pk)])
        assert await hub.join(other)
        try:
            mark = hub.mark(notify.channel(game.pk))  # the view marks, the action reads
            waiting = asyncio.create_task(waits.until_changed(_wait_for(game), (hub, mark)))
            await asyncio.sleep(0.2)
            await asyncio.to_thread(
                services.action_submit,
                game_id=game.pk, user=acting, action=action, version=game.version,
            )  # fmt: skip
            return await asyncio.wait_for(waiting, 10)
        finally:
            await hub.leave(other)

    row = _on_one_thread(scenario)
    game.refresh_from_db()

    assert row == (game.version, game.status, game.to_act)
    assert reads == []


def test_a_wait_whose_game_was_announced_since_the_mark_reads_the_row_again(
    game: Game, bob: User, carol: User, staff: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move announced between the view's mark and the wait's start (after the action
    read the game) would be missed without a read: the wait reads the row, finds the move
    and answers at once."""
    game, acting, action = _started(game, bob, carol, staff)
    reads = _counting_reads(monkeypatch)

    async def scenario() -> waits.Row | None:
        hub = loop_hub()
        channel = notify.channel(game.pk)
        other = Subscriber("other-wait", [channel])
        assert await hub.join(other)
        try:
            mark = hub.mark(channel)
            await asyncio.to_thread(
                services.action_submit,
                game_id=game.pk, user=acting, action=action, version=game.version,
            )  # fmt: skip
            await asyncio.wait_for(other.queue.get(), 10)  # the hub has heard of it
            # at once: not at the wait's timeout (10 s), as it would without the read
            answer = waits.until_changed(_wait_for(game), (hub, mark))
            return await asyncio.wait_for(answer, 3)
        finally:
            await hub.leave(other)

    row = _on_one_thread(scenario)
    moved = Game.objects.get(pk=game.pk)

    assert reads == [game.pk]
    assert row == (moved.version, moved.status, moved.to_act)


def test_an_anonymous_wait_on_a_followed_game_answers_from_its_announcement_unread(
    wait_server: str, game: Game, bob: User, carol: User, staff: User
) -> None:
    """A crowd asks again at every change of the game it watches: while the server's hub
    follows the game (another wait holds it), an anonymous wait answers from the last
    announcement and reads nothing. The game's row is moved on here without an
    announcement, so that only a read could find it: the spectator is answered the move
    announced, while a person, whose seat must be read, is answered the row."""
    game, acting, action = _started(game, bob, carol, staff)
    host, port = wait_server.removeprefix("http://").split(":")
    holder = socket.create_connection((host, int(port)), timeout=10)
    holder.sendall(  # waits past any version this test reaches: the channel stays followed
        f"GET /api/v1/games/{game.pk}/wait/?after=1000000&timeout=30 HTTP/1.1\r\n"
        f"Host: {host}\r\nX-Forwarded-For: {an_address()}\r\nConnection: close\r\n\r\n".encode()
    )
    try:
        time.sleep(0.5)  # the holder's wait has subscribed
        services.action_submit(game_id=game.pk, user=acting, action=action, version=game.version)
        announced = Game.objects.get(pk=game.pk).version
        time.sleep(0.5)  # the hub has heard it
        Game.objects.filter(pk=game.pk).update(version=announced + 5)  # unannounced

        spectator = wait(wait_server, game, an_address(), timeout=0)
        person = wait(
            wait_server, game, an_address(), token_create(user=bob, name="waits")[1], timeout=0
        )
    finally:
        holder.close()
        Game.objects.filter(pk=game.pk).update(version=announced)

    assert spectator.status_code == person.status_code == 200
    assert spectator.json()["version"] == announced
    assert person.json()["version"] == announced + 5


@pytest.mark.parametrize("status", [choice for choice, _ in Game.Status.choices])
@pytest.mark.parametrize("seat", [None, 0, 2])
def test_a_wait_s_answer_is_its_schema_s_shape_as_built(status: str, seat: int | None) -> None:
    """Answered without its serializer (its cost): what it would give is what is built."""
    for row in ((7, status, 2), (7, status, None)):
        body = waits.wait_answer(row, seat, after=6)
        assert WaitResultSerializer(body).data == body
        assert WaitResultSerializer(data=body).is_valid()
