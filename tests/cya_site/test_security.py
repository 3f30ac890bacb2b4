"""What every response says about its own security (cya_site.settings.security, issue 26):
a Content-Security-Policy without ``unsafe-inline`` or ``unsafe-eval``, a Permissions-Policy,
no sniffing, no framing; cookies marked Secure when the settings say so; a plain-HTTP
request sent to HTTPS behind a proxy, the health checks excepted.

``manage.py check --deploy`` under the documented production environment is in
tests/cya_site/test_deploy_check.py; every browser test fails on anything the policy blocks
(tests/browser.py).
"""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django import Settings

from accounts.models import User
from tests.factories import DEFAULT_PASSWORD

PAGES = ["/", "/sign-in/", "/play/", "/ladder/", "/api/v1/docs/", "/admin/login/"]


def _directives(header: str) -> dict[str, list[str]]:
    out = {}
    for part in header.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_every_page_carries_a_strict_content_security_policy(path: str, client: Client) -> None:
    response = client.get(path)
    assert response.status_code == 200, path
    policy = _directives(response["Content-Security-Policy"])

    assert policy["default-src"] == ["'self'"]
    # the site's own files, and a nonce only on a page that has an inline script
    assert policy["script-src"][0] == "'self'"
    assert all(source.startswith("'nonce-") for source in policy["script-src"][1:])
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "unsafe" not in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_every_page_turns_off_what_it_never_uses_and_refuses_framing(client: Client) -> None:
    response = client.get("/")

    features = dict(part.split("=") for part in response["Permissions-Policy"].split(", "))
    assert {features[f] for f in ("camera", "microphone", "geolocation", "payment")} == {"()"}
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_cookies_are_secure_when_the_settings_say_so(
    settings: Settings, client: Client, alice: User
) -> None:
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True

    page = client.get("/sign-in/")
    signed_in = client.post(
        "/sign-in/",
        {"username": "alice", "password": DEFAULT_PASSWORD},
        HTTP_X_CSRFTOKEN=page.cookies["csrftoken"].value,
    )

    assert page.cookies["csrftoken"]["secure"] is True
    assert signed_in.cookies["sessionid"]["secure"] is True
    assert signed_in.cookies["sessionid"]["httponly"] is True


@pytest.mark.django_db
def test_behind_a_tls_proxy_plain_http_is_sent_to_https_but_probes_are_not(
    settings: Settings,
) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    client = Client()  # its middleware is built now, with these settings

    plain = client.get("/ladder/")
    probe = client.get("/healthz")
    secure = client.get("/ladder/", HTTP_X_FORWARDED_PROTO="https")

    assert (plain.status_code, plain["Location"]) == (301, "https://testserver/ladder/")
    assert probe.status_code == 200
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=3600")
