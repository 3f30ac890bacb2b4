"""What a refused webhook says, and the settings the webhook client is built with.

The policy itself (which addresses a webhook may reach) is in test_outbound.py; here are
the words an owner reads when a URL is refused, the port range a URL may name, and the
client's own settings: no proxy or .netrc from the environment, no redirect followed, the
caller's headers and pool limits kept.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from cya_site import outbound
from cya_site.errors import DomainError

PUBLIC = "8.8.8.8"  # a literal address resolves to itself (tests/conftest.py ``hosts``)

REFUSALS = {
    "another scheme": (
        "ftp://bot.example.test/",
        "invalid",
        "A webhook URL must start with http:// or https://.",
    ),
    "a user and password": (
        "https://alice:secret@bot.example.test/",
        "invalid",
        "A webhook URL must not hold a user name or password.",
    ),
    "no host": ("http:///cya", "invalid", "A webhook URL needs a host."),
    "a port past 65535": (
        "http://bot.example.test:65536/",
        "invalid",
        "A webhook URL's port must be from 1 to 65535.",
    ),
    "unreadable": ("http://[::1/", "invalid", "The webhook URL cannot be read."),
    "a name with no address": (
        "https://nowhere.example.test/",
        "webhook_host_not_found",
        "The webhook URL's host name resolves to no address.",
    ),
    "a private address": (
        "http://10.0.0.7/",
        "webhook_address_refused",
        "The webhook URL's host is not a public internet address: webhooks never reach "
        "loopback, private, link-local or other special-purpose addresses.",
    ),
}


@pytest.mark.parametrize(("url", "code", "message"), REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_url_says_what_is_wrong_with_it(url: str, code: str, message: str) -> None:
    with pytest.raises(DomainError) as refused:
        outbound.url_check(url)

    assert (refused.value.code, refused.value.message) == (code, message)


@pytest.mark.parametrize("port", [1, 65535])
def test_every_port_from_1_to_65535_may_be_registered(port: int) -> None:
    outbound.url_check(f"http://{PUBLIC}:{port}/")


def test_a_refused_or_unknown_address_fails_with_the_owners_words() -> None:
    with pytest.raises(outbound.AddressRefused) as refused:
        outbound.addresses_check("10.0.0.7", 443)
    with pytest.raises(outbound.HostNotFound) as not_found:
        outbound.addresses_check("nowhere.example.test", 443)

    assert str(refused.value) == outbound.ADDRESS_REFUSED == outbound.failure(refused.value)
    assert str(not_found.value) == outbound.UNREACHABLE == outbound.failure(not_found.value)


@pytest.mark.parametrize("url", ["http://alice:secret@127.0.0.1:1/", "http://127.0.0.1:0/"])
def test_a_call_to_a_url_that_could_never_be_registered_is_refused_before_connecting(
    url: str, connections: list[str]
) -> None:
    with outbound.client() as client, pytest.raises(outbound.AddressRefused) as refused:
        client.get(url)

    assert str(refused.value) == outbound.ADDRESS_REFUSED
    assert refused.value.request.url == httpx.URL(url)
    assert connections == []


def test_the_client_takes_nothing_from_the_environment_and_follows_no_redirect() -> None:
    with outbound.client(headers={"User-Agent": "cya-webhooks"}) as client:
        assert client.trust_env is False  # no proxy, no .netrc
        assert client.follow_redirects is False
        assert client.headers["User-Agent"] == "cya-webhooks"


def test_the_clients_connection_pool_keeps_the_limits_it_is_given() -> None:
    limits = httpx.Limits(max_connections=3, max_keepalive_connections=2, keepalive_expiry=7)

    with outbound.client(limits=limits) as client:
        # httpx exposes no pool settings: read them where httpcore keeps them
        pool = client._transport._pool  # type: ignore[attr-defined]
        kept = (pool._max_connections, pool._max_keepalive_connections, pool._keepalive_expiry)

    assert kept == (3, 2, 7)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that never answers a connection: its listen queue is full, so the
    kernel drops every further handshake, as a firewall dropping packets would."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    queued = [socket.socket() for _ in range(4)]
    for client in queued:
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
    time.sleep(0.1)
    yield port
    for client in [*queued, server]:
        client.close()


def test_a_connection_that_never_opens_gives_up_at_the_connect_timeout(silent_port: int) -> None:
    started = time.monotonic()
    with outbound.client() as client, pytest.raises(httpx.ConnectTimeout) as timed_out:
        client.get(f"http://127.0.0.1:{silent_port}/", timeout=httpx.Timeout(10, connect=0.3))

    # Not a speed target: without the timeout, the kernel gives up only after its SYN
    # retries (about two minutes) and raises the same error, so the bound is the check.
    assert time.monotonic() - started < 30
    assert outbound.failure(timed_out.value) == outbound.UNREACHABLE
