"""Calling webhook bots: signed requests, deadlines, and every failure classified.

The protocol (docs/bot-protocol.md): ``GET url`` is the handshake and answers the bot's
name and protocol version; ``POST url`` sends one decision and the bot answers
``{"action": <one of legal_actions>}``, with an optional ``"debug"`` note for its owner
(bots.decision_log). Every request carries ``X-CYA-Timestamp`` and
``X-CYA-Signature: sha256=<hex>``, the HMAC-SHA256 of ``"<timestamp>.<body>"`` under the
version's secret, so a bot can check that the platform sent it. One client per thread
keeps connections alive between decisions; it is ``cya_site.outbound``'s, which reaches
only allowed addresses, so a failed call's detail says no more than ``outbound.failure``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import httpx

from cya_site import metrics, outbound

MAX_DEBUG_BYTES = 1024  # a longer debug note is cut to this many bytes of UTF-8


def debug_note(value: object) -> str:
    """A bot's debug note as kept: a string cut to MAX_DEBUG_BYTES of UTF-8 (never inside
    a character); anything but a string is no note."""
    if not isinstance(value, str):
        return ""
    encoded = value.encode("utf-8", "surrogatepass")
    if len(encoded) <= MAX_DEBUG_BYTES:
        return value
    return encoded[:MAX_DEBUG_BYTES].decode("utf-8", "ignore")


PROTOCOL_VERSION = 1
MAX_RESPONSE_BYTES = 64 * 1024
USER_AGENT = f"cya-platform/bot-protocol-{PROTOCOL_VERSION}"

TIMEOUT = "timeout"
CONNECTION = "connection_error"
HTTP = "http_error"
MALFORMED = "malformed"

_local = threading.local()


def client() -> httpx.Client:
    """This thread's HTTP client (connections are reused from decision to decision)."""
    c: httpx.Client | None = getattr(_local, "client", None)
    if c is None:
        c = _local.client = outbound.client(
            headers={"User-Agent": USER_AGENT},
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=50),
        )
    return c


def close() -> None:
    """Close this thread's HTTP client and its connections; the next call opens a new one."""
    c: httpx.Client | None = getattr(_local, "client", None)
    if c is not None:
        del _local.client
        c.close()


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The signature header value for a request body sent at ``timestamp``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """Whether ``signature`` is the platform's signature of this request (constant time)."""
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


@dataclass(frozen=True)
class Answer:
    """A bot's answer, or the fault that replaced it (a Strike reason)."""

    action: dict[str, Any] | None
    fault: str | None
    detail: str
    elapsed_ms: int
    debug: str = ""  # the bot's note for its owner, cut to 1 KiB (bots.decision_log)
    request_bytes: int = 0  # the size of the decision's body sent


def _dumps(payload: dict[str, Any]) -> bytes:
    def default(value: object) -> str:
        if isinstance(value, datetime):
            return value.isoformat()
        raise TypeError(f"cannot send {type(value).__name__}")

    return json.dumps(payload, separators=(",", ":"), default=default).encode()


def _headers(secret: str, body: bytes, **extra: str) -> dict[str, str]:
    timestamp = str(int(time.time()))
    return {
        "Content-Type": "application/json",
        "X-CYA-Timestamp": timestamp,
        "X-CYA-Signature": sign(secret, timestamp, body),
        **extra,
    }


def handshake(url: str, secret: str, timeout: float = 5.0) -> dict[str, Any]:
    """The bot's self-description; raises ``HandshakeError`` saying what went wrong."""
    started = time.monotonic()
    outcome = "ok"
    try:
        return _handshake(url, secret, timeout)
    except HandshakeError as error:
        outcome = error.reason
        raise
    finally:
        metrics.WEBHOOK_SECONDS.labels("handshake", outcome).observe(time.monotonic() - started)


def _handshake(url: str, secret: str, timeout: float) -> dict[str, Any]:
    headers = _headers(secret, b"")
    try:
        response = client().get(url, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        raise HandshakeError(TIMEOUT, f"no answer within {timeout:.0f} s") from None
    except httpx.HTTPError as error:
        raise HandshakeError(CONNECTION, outbound.failure(error)) from None
    if response.status_code != 200:
        raise HandshakeError(HTTP, f"HTTP {response.status_code}")
    try:
        info = response.json()
    except ValueError:
        raise HandshakeError(MALFORMED, "the handshake answer is not JSON") from None
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        raise HandshakeError(MALFORMED, 'the handshake must answer {"name": ..., ...}')
    if info.get("protocol_version") != PROTOCOL_VERSION:
        raise HandshakeError(
            MALFORMED,
            f"protocol_version must be {PROTOCOL_VERSION}, not {info.get('protocol_version')!r}",
        )
    return info


class HandshakeError(Exception):
    """A failed handshake, with the strike-style reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def ask(url: str, secret: str, decision: dict[str, Any], timeout: float) -> Answer:
    """Send one decision and wait at most ``timeout`` seconds for the bot's action."""
    payload = {"protocol_version": PROTOCOL_VERSION, "type": "decision", **decision}
    body = _dumps(payload)
    answer = replace(_ask(url, secret, body, decision, timeout), request_bytes=len(body))
    outcome = answer.fault or "ok"
    metrics.WEBHOOK_SECONDS.labels("decision", outcome).observe(answer.elapsed_ms / 1000)
    return answer


def _ask(url: str, secret: str, body: bytes, decision: dict[str, Any], timeout: float) -> Answer:
    headers = _headers(secret, body, **{"X-CYA-Decision": str(decision["decision_id"])})
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        response = client().post(url, content=body, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return Answer(None, TIMEOUT, f"no answer within {timeout * 1000:.0f} ms", elapsed())
    except httpx.HTTPError as error:
        return Answer(None, CONNECTION, outbound.failure(error), elapsed())
    if elapsed() > timeout * 1000:  # httpx times each read: an answer trickled in is late
        return Answer(None, TIMEOUT, f"no answer within {timeout * 1000:.0f} ms", elapsed())
    if response.status_code != 200:
        return Answer(None, HTTP, f"HTTP {response.status_code}", elapsed())
    if len(response.content) > MAX_RESPONSE_BYTES:
        return Answer(None, MALFORMED, f"answer over {MAX_RESPONSE_BYTES} bytes", elapsed())
    try:
        data = response.json()
    except ValueError:
        return Answer(None, MALFORMED, "the answer is not JSON", elapsed())
    if not isinstance(data, dict):
        return Answer(None, MALFORMED, 'the answer must be {"action": {...}}', elapsed())
    action = data.get("action")
    debug = debug_note(data.get("debug", data.get("note")))  # "note": its older name
    if not isinstance(action, dict):
        return Answer(None, MALFORMED, 'the answer must be {"action": {...}}', elapsed(), debug)
    return Answer(action, None, "", elapsed(), debug)
