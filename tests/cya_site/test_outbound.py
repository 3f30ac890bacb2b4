"""Outgoing webhooks reach only allowed addresses (cya_site.outbound): the policy for every
class of address, the refusal of URLs at registration, and the check at call time, after
DNS, on the very connection that is made.

No request here leaves the machine. Host names resolve through the suite's ``hosts``
table, never through DNS; the ``connections`` guard (both in tests/conftest.py) records
where every socket connected and refuses anything but loopback; servers listen on
127.0.0.1.
The suite allows loopback (``WEBHOOK_ALLOWED_NETWORKS``); tests that need production's
policy set the setting to ``[]``.
"""

from __future__ import annotations

import ipaddress
import re
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytest_django import Settings

from bots import webhook
from cya_site import outbound
from cya_site.errors import DomainError
from tests.bots.bot_servers import SECRET, BotServer, Reply, free_port, good_bot, running

ROOT = Path(__file__).resolve().parents[2]
real_resolve = outbound.resolve  # taken before the suite's ``hosts`` fixture replaces it
DECISION = {"decision_id": "1:1", "legal_actions": [{"type": "concede"}]}


@pytest.fixture(autouse=True)
def _guarded(connections: list[str]) -> None:
    """Every test here runs under the connection guard (tests/conftest.py)."""


def port_of(server: BotServer) -> int:
    port = httpx.URL(server.url).port
    assert port is not None
    return port


# --- the policy -----------------------------------------------------------------------------

NOT_PUBLIC = {
    "loopback": "127.0.0.1",
    "loopback, the rest of 127/8": "127.255.255.254",
    "private 10/8": "10.0.0.7",
    "private 172.16/12": "172.16.5.4",
    "private 192.168/16": "192.168.1.1",
    "link-local, the cloud metadata service": "169.254.169.254",
    "shared 100.64/10, carrier-grade NAT": "100.64.0.1",
    "unspecified": "0.0.0.0",
    "this network 0/8": "0.1.2.3",
    "multicast": "224.0.0.1",
    "multicast, organisation scope": "239.255.255.250",
    "reserved 240/4": "240.0.0.1",
    "broadcast": "255.255.255.255",
    "IETF protocol assignments": "192.0.0.8",
    "documentation": "192.0.2.1",
    "benchmarking": "198.18.0.1",
    "6to4 relay anycast": "192.88.99.1",
    "IPv6 loopback": "::1",
    "IPv6 unspecified": "::",
    "IPv6 link-local": "fe80::1",
    "IPv6 unique local": "fd00::1",
    "IPv6 site-local (deprecated)": "fec0::1",
    "IPv6 multicast, link scope": "ff02::1",
    "IPv6 multicast, global scope": "ff0e::1",
    "IPv6 documentation 2001:db8::/32": "2001:db8::1",
    "IPv6 documentation 3fff::/20": "3fff::1",
    "IPv6 unassigned (reserved)": "5f00::1",
    "IPv6 discard": "100::1",
    "IPv4-compatible loopback": "::127.0.0.1",
    "IPv4-mapped loopback": "::ffff:127.0.0.1",
    "IPv4-mapped private": "::ffff:10.0.0.7",
    "IPv4-mapped link-local": "::ffff:169.254.169.254",
    "IPv4-mapped shared": "::ffff:100.64.0.1",
    "NAT64 of a private address": "64:ff9b::10.0.0.7",
    "NAT64 of loopback": "64:ff9b::127.0.0.1",
    "local-use NAT64, even of a public address": "64:ff9b:1::8.8.8.8",
    "6to4 of a private address": "2002:a00:7::1",
    "6to4 of loopback": "2002:7f00:1::1",
    "Teredo": "2001:0:4136:e378:8000:63bf:3fff:fdd2",
}

# Checked, never connected to.
PUBLIC = {
    "IPv4": "8.8.8.8",
    "IPv4, just past 100.64/10": "100.128.0.1",
    "IPv4, just past 172.16/12": "172.32.0.1",
    "IPv6 global unicast": "2606:4700:4700::1111",
    "IPv6 global unicast, 2001::/16": "2001:4860:4860::8888",
    "IPv4-mapped public": "::ffff:8.8.8.8",
    "NAT64 of a public address": "64:ff9b::8.8.8.8",
    "6to4 of a public address": "2002:808:808::1",
}


@pytest.mark.parametrize("address", NOT_PUBLIC.values(), ids=NOT_PUBLIC.keys())
def test_no_webhook_reaches_an_address_that_is_not_public(address: str) -> None:
    assert outbound.address_allowed(ipaddress.ip_address(address)) is False


@pytest.mark.parametrize("address", PUBLIC.values(), ids=PUBLIC.keys())
def test_webhooks_reach_public_addresses_in_every_form(address: str) -> None:
    assert outbound.address_allowed(ipaddress.ip_address(address)) is True


def test_an_allowed_network_opens_its_addresses_and_their_mapped_form_only() -> None:
    loopback = (ipaddress.ip_network("127.0.0.0/8"),)
    candidates = ("127.0.0.1", "127.8.9.10", "::ffff:127.0.0.1", "::1", "10.0.0.7", "::ffff:a00:7")

    allowed = [a for a in candidates if outbound.address_allowed(ipaddress.ip_address(a), loopback)]

    assert allowed == ["127.0.0.1", "127.8.9.10", "::ffff:127.0.0.1"]


def test_the_resolver_reads_literal_addresses_in_every_spelling_without_dns() -> None:
    loopback = [ipaddress.ip_address("127.0.0.1")]

    assert real_resolve("127.0.0.1", 80) == loopback
    assert real_resolve("2130706433", 80) == loopback  # inet_aton's spellings are literals too
    assert real_resolve("0x7f.1", 80) == loopback
    assert real_resolve("::ffff:10.0.0.7", 80) == [ipaddress.ip_address("::ffff:10.0.0.7")]


def test_the_resolver_finds_nothing_for_a_name_that_cannot_be_asked_for() -> None:
    assert real_resolve("a" * 64 + ".example.test", 443) == []  # a label over 63 characters


FAILURES = {
    "refused address": (outbound.AddressRefused("address not allowed"), "address not allowed"),
    "connection refused": (httpx.ConnectError("[Errno 111] Connection refused"), "unreachable"),
    "no route": (httpx.ConnectError("[Errno 113] No route to host"), "unreachable"),
    "host not found": (outbound.HostNotFound("unreachable"), "unreachable"),
    "connect timeout": (httpx.ConnectTimeout("timed out"), "unreachable"),
    "read timeout": (httpx.ReadTimeout("timed out"), "no answer in time"),
    "not HTTP": (
        httpx.RemoteProtocolError("illegal status line: bytearray(b'SSH-2.0-OpenSSH_9.6')"),
        "the connection ended without an HTTP answer",
    ),
    "reset": (
        httpx.ReadError("[Errno 104] Connection reset by peer"),
        "the connection ended without an HTTP answer",
    ),
    "broken gzip": (
        httpx.DecodingError("Error -3 while decompressing data: incorrect header check"),
        "the answer's Content-Encoding could not be decoded",
    ),
}


@pytest.mark.parametrize(("error", "said"), FAILURES.values(), ids=FAILURES.keys())
def test_a_failed_call_is_told_to_its_owner_without_the_systems_words(
    error: httpx.HTTPError, said: str
) -> None:
    assert outbound.failure(error) == said


# --- at registration ------------------------------------------------------------------------

BAD_FORMS = {
    "another scheme": "ftp://bot.example.test/",
    "no scheme": "bot.example.test/cya",
    "empty": "",
    "a user and password": "https://alice:secret@bot.example.test/",
    "a user name": "https://alice@bot.example.test/",
    "port 0": "http://bot.example.test:0/",
    "a port past 65535": "http://bot.example.test:65536/",
    "no host": "http:///cya",
    "unreadable": "http://[::1/",
}


@pytest.mark.parametrize("url", BAD_FORMS.values(), ids=BAD_FORMS.keys())
def test_a_url_of_the_wrong_form_is_refused_before_any_lookup(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[str] = []

    def resolve(host: str, port: int) -> list[outbound.IPAddress]:
        looked_up.append(host)
        return []

    monkeypatch.setattr(outbound, "resolve", resolve)

    with pytest.raises(DomainError) as refused:
        outbound.url_check(url)

    assert (refused.value.code, refused.value.http_status) == ("invalid", 422)
    assert refused.value.details == {"field": "url"}
    assert looked_up == []


def test_a_name_that_resolves_to_a_private_address_is_refused_without_naming_it(
    hosts: dict[str, list[str]],
) -> None:
    hosts["bot.example.test"] = ["10.0.0.7"]

    with pytest.raises(DomainError) as refused:
        outbound.url_check("https://bot.example.test/cya")

    assert (refused.value.code, refused.value.http_status) == ("webhook_address_refused", 422)
    assert refused.value.details == {"field": "url"}
    assert "10.0.0.7" not in refused.value.message


def test_one_private_address_among_public_ones_refuses_the_name(
    hosts: dict[str, list[str]],
) -> None:
    hosts["bot.example.test"] = ["8.8.8.8", "2606:4700:4700::1111", "fd00::7"]

    with pytest.raises(DomainError) as refused:
        outbound.url_check("https://bot.example.test/cya")

    assert refused.value.code == "webhook_address_refused"


def test_a_name_that_resolves_to_nothing_is_refused_with_its_own_code() -> None:
    with pytest.raises(DomainError) as refused:
        outbound.url_check("https://nowhere.example.test/cya")

    assert (refused.value.code, refused.value.http_status) == ("webhook_host_not_found", 422)
    assert refused.value.details == {"field": "url"}


def test_a_public_name_is_accepted_at_registration_without_any_connection(
    hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["8.8.8.8", "2606:4700:4700::1111"]

    outbound.url_check("https://bot.example.test/cya")
    outbound.url_check("http://BOT.example.test.:8080/")

    assert connections == []


LOCAL_SPELLINGS = {
    "loopback": "http://127.0.0.1:8000/",
    "decimal": "http://2130706433/",
    "hexadecimal": "http://0x7f.1/",
    "IPv6 loopback": "http://[::1]:8000/",
    "IPv4-mapped": "http://[::ffff:127.0.0.1]/",
    "localhost": "http://localhost:8000/",
    "private": "http://10.0.0.7/",
    "the cloud metadata service": "http://169.254.169.254/latest/meta-data/",
}


@pytest.mark.parametrize("url", LOCAL_SPELLINGS.values(), ids=LOCAL_SPELLINGS.keys())
def test_this_machine_and_its_network_are_refused_in_every_spelling(
    url: str, settings: Settings
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # production's policy

    with pytest.raises(DomainError) as refused:
        outbound.url_check(url)

    assert refused.value.code == "webhook_address_refused"


def test_the_allowed_networks_are_allowed_at_registration_and_only_they(
    settings: Settings,
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.0.0.0/8"]

    outbound.url_check("http://10.0.0.7:9000/bot")
    with pytest.raises(DomainError):
        outbound.url_check("http://192.168.1.1/bot")
    with pytest.raises(DomainError):
        outbound.url_check("http://127.0.0.1/bot")


def test_the_codes_of_a_refused_url_are_documented_for_bot_and_club_webhooks() -> None:
    raised = set(re.findall(r'DomainError\(\s*"([a-z_]+)"', Path(outbound.__file__).read_text()))
    errors = (ROOT / "docs/errors.md").read_text()
    sections = {
        name: errors.split(f"\n## {name}\n", 1)[1].split("\n## ")[0]
        for name in ("Bots", "Tournaments and leagues")
    }

    assert raised == {"invalid", "webhook_address_refused", "webhook_host_not_found"}
    for code in raised - {"invalid"}:
        for name, section in sections.items():
            assert f"| `{code}` | 422 |" in section, (code, name)


# --- at call time ---------------------------------------------------------------------------


def test_a_call_to_a_name_that_resolves_to_a_private_address_never_connects(
    hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["10.0.0.7"]

    with outbound.client() as http, pytest.raises(outbound.AddressRefused):
        http.get("http://bot.example.test:8080/")

    assert connections == []


def test_the_handshake_and_decisions_to_such_a_name_fail_saying_only_the_address_is_refused(
    hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["10.0.0.7"]
    url = "http://bot.example.test:8080/cya"

    with pytest.raises(webhook.HandshakeError) as failed:
        webhook.handshake(url, SECRET)
    answer = webhook.ask(url, SECRET, DECISION, timeout=1)

    assert (failed.value.reason, failed.value.detail) == ("connection_error", "address not allowed")
    assert (answer.action, answer.fault, answer.detail) == (
        None,
        "connection_error",
        "address not allowed",
    )
    assert connections == []


def test_a_name_that_was_public_at_registration_and_rebinds_to_a_private_address_is_refused(
    hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["8.8.8.8"]
    outbound.url_check("http://bot.example.test/cya")  # registered while it looked public
    hosts["bot.example.test"] = ["169.254.169.254"]  # then DNS answers otherwise

    with pytest.raises(webhook.HandshakeError) as failed:
        webhook.handshake("http://bot.example.test/cya", SECRET)

    assert failed.value.detail == "address not allowed"
    assert connections == []


def test_the_connection_goes_to_the_address_checked_with_no_second_lookup(
    monkeypatch: pytest.MonkeyPatch, connections: list[str]
) -> None:
    lookups: list[str] = []

    def rebinding(host: str, port: int) -> list[outbound.IPAddress]:
        """Loopback the first time; a private address to every later question."""
        lookups.append(host)
        return [ipaddress.ip_address("127.0.0.1" if len(lookups) == 1 else "10.0.0.7")]

    monkeypatch.setattr(outbound, "resolve", rebinding)
    with running(good_bot("pinned")) as (server,):
        url = f"http://bot.example.test:{port_of(server)}/bot"
        info = webhook.handshake(url, SECRET)
        answer = webhook.ask(url, SECRET, DECISION, timeout=5)  # on the kept-alive connection

    assert info["name"] == "pinned"
    assert answer.fault is None
    assert lookups == ["bot.example.test"]
    assert connections == ["127.0.0.1"]
    # the bot saw its own name: the URL's host, not the address connected to
    assert server.requests[0].headers["host"] == f"bot.example.test:{port_of(server)}"


def test_a_name_that_resolves_to_an_allowed_address_is_called_there_end_to_end(
    hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["127.0.0.1"]
    with running(good_bot("named")) as (server,):
        url = f"http://bot.example.test:{port_of(server)}/bot"
        outbound.url_check(url)
        info = webhook.handshake(url, SECRET)
        answer = webhook.ask(url, SECRET, DECISION, timeout=5)

    assert info["name"] == "named"
    assert answer.action == {"type": "concede"}
    assert server.signatures_all_valid()
    assert set(connections) == {"127.0.0.1"}


def test_without_the_allowance_a_bot_on_loopback_is_refused_and_never_connected_to(
    settings: Settings, connections: list[str]
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # production's policy
    with running(good_bot()) as (server,), pytest.raises(webhook.HandshakeError) as failed:
        webhook.handshake(server.url, SECRET)

    assert failed.value.detail == "address not allowed"
    assert server.connections == 0
    assert connections == []


def test_an_allowed_address_where_nothing_listens_is_only_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}/bot"

    with pytest.raises(webhook.HandshakeError) as failed:
        webhook.handshake(url, SECRET)
    answer = webhook.ask(url, SECRET, DECISION, timeout=1)

    assert (failed.value.reason, failed.value.detail) == ("connection_error", "unreachable")
    assert (answer.fault, answer.detail) == ("connection_error", "unreachable")


def test_a_redirect_is_an_http_error_and_is_never_followed() -> None:
    target = good_bot("elsewhere")
    with running(target):
        redirecting = BotServer(
            "redirecting",
            lambda bot, decision: Reply(307, location=target.url),
            handshake=Reply(302, location=target.url),
        )
        with running(redirecting):
            with pytest.raises(webhook.HandshakeError) as failed:
                webhook.handshake(redirecting.url, SECRET)
            answer = webhook.ask(redirecting.url, SECRET, DECISION, timeout=5)

    assert (failed.value.reason, failed.value.detail) == ("http_error", "HTTP 302")
    assert (answer.fault, answer.detail) == ("http_error", "HTTP 307")
    assert [r.method for r in redirecting.requests] == ["GET", "POST"]
    assert target.requests == []


def test_an_operators_tool_may_reach_more_networks_inside_its_block_only(
    settings: Settings,
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    with running(good_bot("local")) as (server,):
        with outbound.allowing("127.0.0.0/8"), outbound.client() as http:
            assert http.get(server.url).status_code == 200
        with outbound.client() as http, pytest.raises(outbound.AddressRefused):
            http.get(server.url)


# --- TLS on the pinned connection -----------------------------------------------------------


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA, and a certificate it signed for bot.example.test (made with openssl)."""
    folder = tmp_path_factory.mktemp("tls")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl(
        "req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
        "-subj", "/CN=CYA test CA", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    openssl("req", *key, "-keyout", "bot.key", "-out", "bot.csr", "-subj", "/CN=bot.example.test")
    (folder / "bot.ext").write_text(
        "subjectAltName=DNS:bot.example.test\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
    )
    openssl(
        "x509", "-req", "-in", "bot.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "bot.pem", "-days", "1", "-extfile", "bot.ext",
    )  # fmt: skip
    return folder


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


@contextmanager
def tls_server(certificates: Path) -> Iterator[tuple[int, list[str | None]]]:
    """An HTTPS server on 127.0.0.1 with bot.example.test's certificate: its port, and the
    server name (SNI) each TLS handshake asked for."""
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates / "bot.pem", certificates / "bot.key")
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server.server_address[1], names
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_tls_is_verified_against_the_name_while_the_connection_goes_to_its_checked_address(
    certificates: Path, hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["127.0.0.1"]
    hosts["other.example.test"] = ["127.0.0.1"]  # the same server, a name not on its certificate
    trust = ssl.create_default_context(cafile=str(certificates / "ca.pem"))

    with tls_server(certificates) as (port, names), outbound.client(ssl_context=trust) as http:
        answered = http.get(f"https://bot.example.test:{port}/")
        with pytest.raises(httpx.ConnectError) as failed:
            http.get(f"https://other.example.test:{port}/")

    assert answered.status_code == 200
    assert "certificate verify failed" in str(failed.value)
    assert outbound.failure(failed.value) == "unreachable"  # what an owner would read
    assert names == ["bot.example.test", "other.example.test"]  # SNI: the name, not the address
    assert connections == ["127.0.0.1", "127.0.0.1"]
