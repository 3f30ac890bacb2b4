"""Outgoing webhook calls: the addresses they may reach, and the one client that makes them.

Bot webhooks and clubs' result webhooks are URLs that users hand the platform, which then
calls them from its workers. Unchecked, anyone could make it call its own loopback, its
private network or a cloud metadata service (server-side request forgery), and learn
from the error whether a port there is open. So a webhook reaches only public (globally
routable) addresses, plus the networks the operator lists in ``WEBHOOK_ALLOWED_NETWORKS``
(none in production; ``make run`` and the tests allow loopback, where their bots listen).

The address is checked twice. ``url_check`` refuses a URL at registration: its form, and
every address its host resolves to. ``client`` checks again at every new connection, in
its network backend: the host is resolved once, every address must be allowed, and the
socket connects to one of those checked addresses, so a second DNS answer can never slip
in between check and connect (DNS rebinding). TLS still verifies the certificate against
the host name, sent as SNI; redirects are never followed. ``failure`` says what an owner
may read of a failed call, and no more.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import httpcore
import httpx
from django.conf import settings

from cya_site.errors import DomainError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# What an owner reads of a failed call (validation logs, strikes, delivery records): the
# operating system's own words would tell "Connection refused" from "No route to host".
ADDRESS_REFUSED = "address not allowed"
UNREACHABLE = "unreachable"
NO_ANSWER = "the connection ended without an HTTP answer"
TIMED_OUT = "no answer in time"
UNDECODABLE = "the answer's Content-Encoding could not be decoded"

# Blocks that are not public although ipaddress's is_global says so on some Python
# versions (3.11.7 counts 192.0.0.0/24 and 3fff::/20 as global), or that the checks
# below would otherwise judge by another rule.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(block)
    for block in (
        "100.64.0.0/10",  # shared address space: carrier-grade NAT
        "192.0.0.0/24",  # IETF protocol assignments
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated)
        "64:ff9b:1::/48",  # local-use NAT64: leads into private networks
        "2001::/32",  # Teredo: refused whatever IPv4 addresses it hides
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the well-known prefix: the last 32 bits lead

# Networks allowed for calls made inside ``allowing`` (in this thread or task only).
_allowing: ContextVar[tuple[IPNetwork, ...]] = ContextVar("outbound_allowing", default=())


class AddressRefused(httpx.ConnectError):
    """A webhook call the policy refused before any connection was made."""


class HostNotFound(httpx.ConnectError):
    """A webhook host name that resolves to no address."""


# --- the policy ---------------------------------------------------------------------------


def address_allowed(address: IPAddress, allowed: Sequence[IPNetwork] = ()) -> bool:
    """Whether a webhook may connect to ``address``: a public one, or one in ``allowed``.

    An IPv6 address carrying an IPv4 one (IPv4-mapped, NAT64, 6to4) is judged by that
    IPv4 address, which is where a connection to it leads.
    """
    if any(address.version == network.version and address in network for network in allowed):
        return True
    carried = _carried_ipv4(address)
    if carried is not None:
        return address_allowed(carried, allowed)
    return _public(address)


def _carried_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)
    return address.sixtofour


def _public(address: IPAddress) -> bool:
    # is_global leaves out private, loopback, link-local, unspecified and most reserved
    # blocks, but not multicast, nor (3.11) IPv4-compatible and site-local IPv6.
    if not address.is_global or address.is_multicast or address.is_reserved:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return False
    return not any(address.version == block.version and address in block for block in _NOT_PUBLIC)


def networks_allowed() -> tuple[IPNetwork, ...]:
    """The networks webhooks may reach besides public addresses: the setting's, and those
    an enclosing ``allowing`` adds."""
    return _networks(tuple(settings.WEBHOOK_ALLOWED_NETWORKS)) + _allowing.get()


@functools.cache
def _networks(cidrs: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


@contextmanager
def allowing(*cidrs: str) -> Iterator[None]:
    """Let the calls made inside this block reach these networks too.

    For a tool whose operator typed the URLs on this machine (``manage.py play``): never
    around a call to a URL that a user registered. Connections opened inside stay in
    their client's pool, so such a tool closes its client when it is done.
    """
    token = _allowing.set(_allowing.get() + _networks(cidrs))
    try:
        yield
    finally:
        _allowing.reset(token)


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` names, in the resolver's order; ``[]`` when none.

    A literal address resolves to itself without asking DNS (so do the numeric spellings
    ``getaddrinfo`` reads, such as ``2130706433``). Tests replace this function, so that
    no DNS query ever leaves the test machine.
    """
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))


def addresses_check(host: str, port: int) -> list[IPAddress]:
    """The addresses ``host`` resolves to, each of them allowed.

    Raises HostNotFound, or AddressRefused when any address is not allowed: a name with a
    public and a private address would otherwise lead to the private one whenever the
    public one fails to answer.
    """
    found = resolve(host, port)
    if not found:
        raise HostNotFound(UNREACHABLE)
    allowed = networks_allowed()
    if not all(address_allowed(address, allowed) for address in found):
        raise AddressRefused(ADDRESS_REFUSED)
    return found


def _form_problem(url: httpx.URL) -> str | None:
    """What is wrong with the URL's form for a webhook, or None."""
    if url.scheme not in ("http", "https"):
        return "A webhook URL must start with http:// or https://."
    if url.userinfo:
        return "A webhook URL must not hold a user name or password."
    if not url.host:
        return "A webhook URL needs a host."
    if url.port is not None and not 1 <= url.port <= 65535:
        return "A webhook URL's port must be from 1 to 65535."
    return None


def url_form_problem(url: str) -> str | None:
    """What is wrong with a webhook URL's form, or None: ``url_check``'s first half, which
    asks no DNS (a page reports it beside the URL, with the form's other errors)."""
    try:
        return _form_problem(httpx.URL(url))
    except httpx.InvalidURL:
        return "The webhook URL cannot be read."


def url_check(url: str) -> None:
    """Refuse a webhook URL at registration, by its form and by its host's addresses.

    Raises DomainError: ``invalid`` (``details.field`` is ``url``) for the form,
    ``webhook_host_not_found`` when the host resolves to nothing, and
    ``webhook_address_refused`` when an address it resolves to is not allowed. The
    messages never name the addresses found: they may be the platform's private ones.
    """
    details = {"field": "url"}
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        raise DomainError("invalid", "The webhook URL cannot be read.", details) from None
    problem = _form_problem(parsed)
    if problem is not None:
        raise DomainError("invalid", problem, details)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses_check(parsed.raw_host.decode("ascii"), port)
    except HostNotFound:
        message = "The webhook URL's host name resolves to no address."
        raise DomainError("webhook_host_not_found", message, details) from None
    except AddressRefused:
        message = (
            "The webhook URL's host is not a public internet address: webhooks never "
            "reach loopback, private, link-local or other special-purpose addresses."
        )
        raise DomainError("webhook_address_refused", message, details) from None


# --- the client ---------------------------------------------------------------------------


class _PinnedBackend(httpcore.NetworkBackend):
    """Opens each connection to a checked address of the host, resolved once for it."""

    def __init__(self) -> None:
        self._tcp = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        failed: Exception | None = None
        for address in addresses_check(host, port):
            try:
                return self._tcp.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failed = error
        assert failed is not None  # addresses_check returns one address or more
        raise failed

    def sleep(self, seconds: float) -> None:
        self._tcp.sleep(seconds)


class _Transport(httpx.HTTPTransport):
    """httpx's own transport over the pinned backend, refusing URLs of the wrong form."""

    def __init__(self, limits: httpx.Limits, ssl_context: ssl.SSLContext | None) -> None:
        super().__init__(trust_env=False, limits=limits)
        # httpx takes no network backend, so its pool is replaced by the same pool over
        # ours; the tests of the call-time check fail if this ever stops taking effect.
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_PinnedBackend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request, unless its URL could never have been registered."""
        if _form_problem(request.url) is not None:
            raise AddressRefused(ADDRESS_REFUSED, request=request)
        return super().handle_request(request)


def client(
    *,
    headers: dict[str, str] | None = None,
    limits: httpx.Limits | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> httpx.Client:
    """A client for webhook calls: the address policy at every new connection, TLS
    verified against the host name (``ssl_context`` defaults to httpx's, which honours
    ``SSL_CERT_FILE``), redirects never followed, and no proxy or ``.netrc`` taken from
    the environment (a proxy would connect where the policy never looked)."""
    return httpx.Client(
        headers=headers,
        transport=_Transport(limits or httpx.Limits(), ssl_context),
        follow_redirects=False,
        trust_env=False,
    )


def failure(error: httpx.HTTPError) -> str:
    """What a webhook's owner may read of a failed call.

    A refused address, one that cannot be reached, an answer not in time, an answer
    that could not be decoded, or a connection that ended without an HTTP answer: never
    the system's own words, which would tell a closed port from a filtered one or name
    the service behind it.
    """
    if isinstance(error, AddressRefused):
        return ADDRESS_REFUSED
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return UNREACHABLE
    if isinstance(error, httpx.TimeoutException):
        return TIMED_OUT
    if isinstance(error, httpx.DecodingError):
        return UNDECODABLE
    return NO_ANSWER
