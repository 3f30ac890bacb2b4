"""The page foundation: the landing page, error pages, static files, dollars, the budget."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from cya_site.templatetags.pages import format_dollars
from tests.pages import BUDGET, text, transfer_size


@pytest.mark.django_db
def test_the_landing_page_says_what_this_is_and_links_everywhere(
    client: Client, django_assert_max_num_queries: object
) -> None:
    with django_assert_max_num_queries(2):  # type: ignore[operator]
        response = client.get("/")

    assert response.status_code == 200
    body = response.content.decode()
    assert "Cover Your Assets" in text(body)
    for href in ("/leagues/", "/tournaments/", "/games/", "/ladder/", "/api/v1/docs/"):
        assert f'href="{href}"' in body


@pytest.mark.django_db
def test_a_page_loads_htmx_and_the_stylesheet_from_this_site_never_a_cdn(client: Client) -> None:
    body = client.get("/").content.decode()

    assert 'src="/static/cya/vendor/htmx/htmx.min.js"' in body
    assert 'href="/static/cya/site.css"' in body
    assert "https://" not in body.split("<body")[0]


@pytest.mark.django_db
def test_the_landing_page_with_its_css_and_js_stays_under_the_budget(client: Client) -> None:
    assert transfer_size(client, "/") < BUDGET


@pytest.mark.django_db
def test_an_unknown_page_is_an_html_404_and_an_unknown_api_path_stays_json(client: Client) -> None:
    page = client.get("/no-such-page/")
    api = client.get("/api/v1/no-such-thing/")

    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")
    assert "Not found" in text(page.content)
    assert api.status_code == 404
    assert api.json()["code"] == "not_found"


@pytest.mark.django_db
def test_pages_speak_german_to_a_browser_that_asks_for_it(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")

    assert response["Content-Language"] == "de"
    assert '<html lang="de">' in response.content.decode()
    assert "Ligen" in text(response.content)


def test_dollars_read_as_people_write_them_in_each_language() -> None:
    assert format_dollars(1_385_000, "en") == "$1,385,000"
    assert format_dollars(0, "en") == "$0"
    assert format_dollars(1_385_000, "de") == "1.385.000 $"
    with translation.override("de"):
        assert format_dollars(5000) == "5.000 $"
    assert format_dollars(None) == ""
