"""Every page keeps to the Content-Security-Policy in a real browser (issue 26).

With the demo loaded, a visitor and the demo's staff account each follow the site's own
links from the start page, breadth first: every page answers below 500, and the browser
fixture (tests/browser.py) fails the test on anything the policy blocked: an inline
script or style, or eval. The API's docs and the admin are visited too.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import Page

from tests.browser import DESKTOP
from tournaments.management.commands.seed_demo import DEMO_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

MOST_PAGES = 30  # per visitor: enough to reach every kind of page the demo links
SKIP = ("/sign-out/", ".csv", ".ics", "/static/", "/api/v1/schema")


def crawl(page: Page, start: list[str]) -> list[str]:
    """Visit pages breadth first from ``start`` by the site's own links; the paths seen."""
    seen: list[str] = []
    queue = list(start)
    while queue and len(seen) < MOST_PAGES:
        path = queue.pop(0)
        if path in seen:
            continue
        response = page.goto(path)
        assert response is not None, path
        assert response.status < 500, (path, response.status)
        seen.append(path)
        page.wait_for_load_state("load")
        for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
            parts = urlsplit(href)
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            if parts.netloc == urlsplit(page.url).netloc and not any(s in href for s in SKIP):
                queue.append(target)
    return seen


def test_a_visitor_sees_no_page_the_policy_breaks(open_page: Callable[..., Page]) -> None:
    call_command("seed_demo", "--url", "http://testserver/", verbosity=0)
    page = open_page("", size=DESKTOP)

    seen = crawl(page, ["/", "/api/v1/docs/"])

    assert len(seen) >= 10
    assert page.goto("/api/v1/docs/") is not None
    page.wait_for_selector(".swagger-ui .info")  # Swagger UI started from its own script


def test_staff_see_no_page_the_policy_breaks_the_admin_included(
    open_page: Callable[..., Page],
) -> None:
    call_command("seed_demo", "--url", "http://testserver/", verbosity=0)
    page = open_page("/sign-in/", size=DESKTOP)
    page.get_by_label("Username").fill("demo-admin")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")

    seen = crawl(page, ["/", "/admin/", "/admin/games/game/"])

    assert "/admin/" in seen
    page.goto("/admin/")
    assert page.locator("#site-status table.site-status").count() == 1
