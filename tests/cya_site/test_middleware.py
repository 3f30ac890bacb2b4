"""Django's middleware on the event loop (cya_site.middleware): under ASGI its hooks run
inline, with no thread hop, and the session's and the messages' hop to a thread only to
save, so signing in, changing a setting and reading its message work as under WSGI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.sessions.models import Session
from django.test import AsyncClient

from accounts.models import User
from cya_site import middleware
from tests.factories import DEFAULT_PASSWORD


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hooks cya_site.middleware sent to a thread, by name."""
    sent: list[str] = []

    def spy(fn: Callable[..., Any], **kwargs: Any) -> Any:
        sent.append(type(fn.__self__).__name__)  # type: ignore[attr-defined]
        return sync_to_async(fn, **kwargs)

    monkeypatch.setattr(middleware, "sync_to_async", spy)
    return sent


def test_a_request_that_saves_nothing_runs_every_hook_on_the_event_loop(
    hops: list[str], db: None
) -> None:
    client = AsyncClient()

    health = async_to_sync(client.get)("/healthz")
    page = async_to_sync(client.get)("/sign-in/")

    assert health.status_code == page.status_code == 200
    assert "csrftoken" in page.cookies  # the CSRF hooks ran, inline
    assert page["X-Frame-Options"] == "DENY"  # and the clickjacking one
    assert "Content-Security-Policy" in page
    assert hops == []


def test_signing_in_changing_a_password_and_reading_the_message_work_under_asgi(
    hops: list[str], alice: User
) -> None:
    client = AsyncClient()
    get, post = async_to_sync(client.get), async_to_sync(client.post)

    signed_in = post("/sign-in/", {"username": "alice", "password": DEFAULT_PASSWORD})
    saves_on_sign_in = list(hops)
    changed = post(
        "/account/password/", {"current": DEFAULT_PASSWORD, "new": "a-new-long-passphrase-7"}
    )
    shown = get("/account/")
    shown_again = get("/account/")

    assert signed_in.status_code == changed.status_code == 302
    assert saves_on_sign_in == ["SessionMiddleware"]  # the new session, saved in a thread
    assert Session.objects.filter(session_key=client.cookies["sessionid"].value).exists()
    assert "Password changed" in shown.content.decode()  # stored, then read, in a thread
    assert "Password changed" not in shown_again.content.decode()  # and read once
    assert "MessageMiddleware" in hops
    alice.refresh_from_db()
    assert alice.check_password("a-new-long-passphrase-7")
