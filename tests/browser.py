"""Browser fixtures: Playwright for Python driving Debian's chromium (never a download).

``browser`` is a Chromium for one test; ``open_page`` makes pages in fresh browser
contexts (one per person at the table), at phone size unless asked otherwise, against
pytest-django's live server. A failed test leaves a screenshot of every page it opened
under ``var/screenshots/``, and anything the Content-Security-Policy blocked on any page
fails it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = Path(__file__).resolve().parent.parent / "var" / "screenshots"
PHONE: ViewportSize = {"width": 360, "height": 740}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
# As the machine notes advise: no background traffic (the network is closed), no sandbox
# (CI runs as root), no GPU.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def browser() -> Iterator[Browser]:
    """A headless Debian Chromium for one test.

    Playwright's sync API keeps an event loop running in this thread while it is open,
    and Django refuses database calls from a thread with a running loop; the test's own
    database calls run between Playwright's, never inside them, so the check is lifted
    for this test only (and the browser started per test, so no later test runs with it).
    """
    if not CHROMIUM.exists():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: `apt-get install -y chromium` "
            "(.ci/run installs it). Browser tests never skip."
        )
    before = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=ARGS
            )
            try:
                yield browser
            finally:
                browser.close()
                # Django keeps connections per async context, and Playwright's loop is
                # one: what the test opened inside it is closed inside it, or it would
                # outlive the test database.
                connections.close_all()
    finally:
        if before is None:
            del os.environ[ASYNC_UNSAFE]
        else:
            os.environ[ASYNC_UNSAFE] = before


@pytest.fixture
def open_page(
    browser: Browser, live_server: object, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Page]]:
    """``open_page(path, size=PHONE, locale="en-US")``: a page in a fresh context (its own
    cookies; the browser's language is ``locale``)."""
    pages: list[Page] = []
    base = str(live_server)
    # Every page of every browser test is held to the Content-Security-Policy
    # (cya_site.settings.security): anything it blocks (an inline script or style, eval)
    # is logged by Chromium, and fails the test.
    blocked: list[str] = []

    def open_(path: str = "/", size: ViewportSize | None = None, locale: str = "en-US") -> Page:
        context = browser.new_context(
            base_url=base, viewport=size or PHONE, accept_downloads=True, locale=locale
        )
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.on(
            "console",
            lambda message: (
                blocked.append(f"{page.url}: {message.text}")
                if "Content Security Policy" in message.text
                else None
            ),
        )
        pages.append(page)
        if path:
            page.goto(path)
        return page

    yield open_
    failed = any(
        getattr(getattr(request.node, f"report_{when}", None), "failed", False)
        for when in ("setup", "call")
    )
    if failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)
        for n, page in enumerate(pages):
            path = SCREENSHOTS / f"{name}-{n}.png"
            page.screenshot(path=str(path), full_page=True)
            print(f"screenshot: {path}")
    for page in pages:
        page.context.close()
    assert not blocked, "the Content-Security-Policy blocked:\n" + "\n".join(blocked)


def open_menu(page: Page) -> None:
    """Unfold the site menu where it folds (below 600 px): its links, the account and the
    language live behind the "Menu" button there."""
    toggle = page.get_by_role("button", name="Menu", exact=True)
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
