"""The crowd's long-poll answered lean (games.api.lean_waits, cya_site.lean, issue 25): an
anonymous wait on a game the server follows is answered on the event loop, without
Django's middleware or DRF, exactly as Django answers it: the same body, the same
headers, the same rate limits (counted once), the same caps, the same wait; anything
else is left to the view.

The server is a real uvicorn process, as in tests/games/test_waits.py. Which answers were
lean is read from its ``/metrics`` (``cya_lean_answers_total``)."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from django.conf import settings as django_settings

from accounts.models import User
from accounts.services import token_create
from games import services, store
from games.api.lean_waits import plain_query
from games.engine import RuleSet, action_to_json, legal_actions
from games.models import Game, Seat
from tests.games.test_waits import _started, an_address, uvicorn_serving, wait

pytestmark = pytest.mark.usefixtures("transactional_db")
METRICS_TOKEN = "lean-waits-metrics"
PER_ADDRESS, WAIT_RATE = 2, 4
OWN = {"x-request-id", "server-timing", "content-length", "date"}  # each answer's own


@pytest.fixture(scope="module")
def server(django_db_setup: None) -> Iterator[str]:
    settings = {
        "METRICS_TOKEN": METRICS_TOKEN,
        "WAITS_PER_ADDRESS": str(PER_ADDRESS),
        "THROTTLE_WAIT": f"{WAIT_RATE}/min",
    }
    with uvicorn_serving(settings) as base:
        yield base


class Followed:
    """A dealt game the server's hub follows (a wait past any version holds its channel)
    and has heard a move of; ``move()`` plays the next one."""

    def __init__(self, base: str, game: Game, bob: User, carol: User, staff: User) -> None:
        self.base, self.players = base, (bob, carol, staff)
        self.game, _, _ = _started(game, bob, carol, staff)
        host, port = base.removeprefix("http://").split(":")
        self.holder = socket.create_connection((host, int(port)), timeout=10)
        self.holder.sendall(
            f"GET /api/v1/games/{game.pk}/wait/?after=1000000&timeout=30 HTTP/1.1\r\n"
            f"Host: {host}\r\nX-Forwarded-For: {an_address()}\r\nConnection: close\r\n\r\n".encode()
        )
        time.sleep(0.5)  # the holder's wait has subscribed
        self.move()

    def move(self) -> None:
        """The next seat's first legal action, announced and heard by the hub."""
        game, acting, action = _started_again(self.game)
        services.action_submit(game_id=game.pk, user=acting, action=action, version=game.version)
        self.game.refresh_from_db()
        time.sleep(0.3)  # the hub has heard it

    def close(self) -> None:
        self.holder.close()


def _started_again(game: Game) -> tuple[Game, User, dict[str, Any]]:
    game.refresh_from_db()
    state = store.load_state(game)
    acting = Seat.objects.get(game=game, number=state.to_act).user
    assert acting is not None
    return game, acting, action_to_json(legal_actions(state)[0], state.rules.edition)


@pytest.fixture
def followed(server: str, alice: User, bob: User, carol: User, staff: User) -> Iterator[Followed]:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    table = Followed(server, game, bob, carol, staff)
    wait(server, table.game, an_address(), timeout=0)  # Django answers the kind once
    try:
        yield table
    finally:
        table.close()


def lean_answers(base: str) -> float:
    """How many waits the server has answered lean so far."""
    page = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    page.raise_for_status()
    found = re.search(r'cya_lean_answers_total\{route="([^"]*wait[^"]*)"\} (\S+)', page.text)
    return float(found.group(2)) if found else 0.0


def waiting(base: str, game: Game, timeout: float) -> tuple[threading.Thread, list[httpx.Response]]:
    """A spectator's wait sent on a thread of its own; its answer lands in the list."""
    answers: list[httpx.Response] = []
    waiter = threading.Thread(
        target=lambda: answers.append(wait(base, game, an_address(), timeout=timeout))
    )
    waiter.start()
    return waiter, answers


def test_a_spectators_wait_is_answered_lean_with_djangos_body_and_headers(
    server: str, alice: User, bob: User, carol: User, staff: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    table = Followed(server, game, bob, carol, staff)
    try:
        url = f"{server}/api/v1/games/{game.pk}/wait/"
        query = {"after": table.game.version, "timeout": 0}
        kind = {"Accept-Language": "en-GB;q=0.9"}  # a kind of request no other test sends
        before = lean_answers(server)
        django = httpx.get(url, params=query, headers={**kind, "X-Forwarded-For": an_address()})
        after_django = lean_answers(server)
        headers = {**kind, "X-Forwarded-For": an_address(), "X-Request-ID": "lean-1"}
        lean = httpx.get(url, params=query, headers=headers)
    finally:
        table.close()

    assert after_django == before  # Django's own answer taught the kind
    assert lean_answers(server) == before + 1
    assert (lean.status_code, lean.content) == (django.status_code, django.content)
    assert lean.json()["version"] == table.game.version
    theirs = {k: v for k, v in django.headers.items() if k not in OWN}
    ours = {k: v for k, v in lean.headers.items() if k not in OWN}
    assert ours == theirs
    assert ours["x-content-type-options"] == "nosniff"
    assert ours["content-security-policy"]
    assert lean.headers["x-request-id"] == "lean-1"
    assert lean.headers["server-timing"].startswith("app;dur=")


def test_a_lean_wait_waits_for_the_next_move_and_answers_it(
    server: str, followed: Followed
) -> None:
    before = lean_answers(server)
    seen = followed.game.version
    waiter, answers = waiting(server, followed.game, timeout=20)
    time.sleep(0.5)  # waiting

    started = time.monotonic()
    followed.move()
    waiter.join(20)

    assert answers[0].status_code == 200
    assert answers[0].json()["version"] == followed.game.version > seen
    assert answers[0].json()["changed"] is True
    assert time.monotonic() - started < 5  # woken by the move, not at the timeout
    assert lean_answers(server) == before + 1


def test_a_persons_wait_and_a_query_that_is_not_plain_are_the_views(
    server: str, followed: Followed
) -> None:
    before = lean_answers(server)
    url = f"{server}/api/v1/games/{followed.game.pk}/wait/"
    token = token_create(user=followed.players[0], name="lean")[1]
    person = wait(server, followed.game, an_address(), token, timeout=0)
    negative = httpx.get(url, params={"after": -1}, headers={"X-Forwarded-For": an_address()})
    unknown = httpx.get(url, params={"after": 1, "seat": 2})
    too_long = httpx.get(url, params={"after": 1, "timeout": 31})

    assert person.status_code == 200
    assert negative.status_code == unknown.status_code == too_long.status_code == 400
    assert negative.json()["code"] == "invalid"
    assert lean_answers(server) == before


@pytest.mark.parametrize(
    ("query", "plain"),
    [
        (b"after=3", (3, 25.0)),
        (b"after=3&timeout=0", (3, 0.0)),
        (b"timeout=2.5&after=0", (0, 2.5)),
        (b"after=3&timeout=30", (3, 30.0)),
        (b"after=3&timeout=30.5", None),
        (b"after=-1", None),
        (b"after=3&after=4", None),
        (b"after=3&x=1", None),
        (b"timeout=1", None),
        (b"after=%C3%A9", None),
        (b"after=1e3", None),
        (b"", None),
    ],
)
def test_only_a_plainly_valid_query_is_read_lean(query: bytes, plain: Any) -> None:
    assert plain_query(query) == plain


def test_a_spent_rate_limit_is_refused_by_the_view_having_been_counted_once(
    server: str, followed: Followed
) -> None:
    address = an_address()
    if time.time() % 60 > 50:  # all in one window of the minute's rate
        time.sleep(61 - time.time() % 60)
    answers = [wait(server, followed.game, address, timeout=0) for _ in range(WAIT_RATE + 1)]

    assert [a.status_code for a in answers] == [200] * WAIT_RATE + [429]
    assert answers[-1].json()["code"] == "throttled"
    assert int(answers[-1].headers["Retry-After"]) > 0
    counters = redis.Redis.from_url(django_settings.REDIS_URL)
    keys = list(counters.scan_iter(match=f"*throttle:wait:ip:{address}:*"))
    assert [int(counters.get(key) or 0) for key in keys] == [WAIT_RATE + 1]


def _held(base: str, game: Game, address: str) -> socket.socket:
    """A lean wait (as httpx sends one) held open on a socket of its own."""
    host, port = base.removeprefix("http://").split(":")
    held = socket.create_connection((host, int(port)), timeout=10)
    held.sendall(
        f"GET /api/v1/games/{game.pk}/wait/?after={game.version}&timeout=30 HTTP/1.1\r\n"
        f"Host: {host}:{port}\r\nAccept: */*\r\nX-Forwarded-For: {address}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    return held


def test_a_lean_wait_holds_a_place_under_the_caps_and_frees_it_when_its_client_hangs_up(
    server: str, followed: Followed
) -> None:
    address = an_address()
    before = lean_answers(server)
    held = [_held(server, followed.game, address) for _ in range(PER_ADDRESS)]
    deadline = time.monotonic() + 30
    while (refused := wait(server, followed.game, address, timeout=0.2)).status_code != 429:
        assert time.monotonic() < deadline, "the held waits never counted"
    for wait_socket in held:
        wait_socket.close()
    time.sleep(1)  # a client gone frees its place within a second
    admitted = wait(server, followed.game, address, timeout=0.2)

    assert refused.json()["code"] == "too_many_waits"
    assert refused.headers["Retry-After"]
    assert admitted.status_code == 200
    assert lean_answers(server) >= before + 1  # the last one, at least, was lean


def test_a_game_deleted_while_a_lean_wait_waits_is_answered_404_in_the_one_shape(
    server: str, followed: Followed
) -> None:
    before = lean_answers(server)
    waiter, answers = waiting(server, followed.game, timeout=2)
    time.sleep(0.5)  # waiting

    Game.objects.filter(pk=followed.game.pk).delete()  # by staff, unannounced
    waiter.join(20)

    assert answers[0].status_code == 404
    assert answers[0].json()["code"] == "not_found"
    assert answers[0].headers["x-content-type-options"] == "nosniff"
    assert lean_answers(server) == before + 1
