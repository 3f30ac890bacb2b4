"""Helpers for page tests: what a page costs to load, and reading its HTML."""

from __future__ import annotations

import gzip
import re
from html import unescape

from django.contrib.staticfiles import finders
from django.test import Client

ASSET = re.compile(r'<(?:link[^>]+href|script[^>]+src)="/static/([^"]+)"')
BUDGET = 100_000  # bytes of HTML + CSS + JS, gzip-compressed


def transfer_size(client: Client, path: str) -> int:
    """Bytes a first visit to ``path`` transfers, gzip-compressed: the page's HTML and
    every stylesheet and script it links (read from the static files, as whitenoise
    would serve them)."""
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    html = response.content
    total = len(gzip.compress(html))
    for asset in sorted(set(ASSET.findall(html.decode()))):
        found = finders.find(asset)
        assert isinstance(found, str), f"{path} links a missing static file {asset}"
        with open(found, "rb") as file:
            total += len(gzip.compress(file.read()))
    return total


def text(html: bytes | str) -> str:
    """The page's visible text, tags stripped and whitespace collapsed (for assertions)."""
    if isinstance(html, bytes):
        html = html.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
