"""Static files in production: collected under content-hashed names and served by
whitenoise, compressed and cached for good; pages link the hashed names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.test import RequestFactory, override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

MANIFEST = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


def not_static(request: HttpRequest) -> HttpResponse:
    return HttpResponse("not a static file", status=404)


@pytest.mark.django_db
def test_collected_files_are_served_hashed_compressed_and_cached_for_good(tmp_path: Path) -> None:
    production = {
        "DEBUG": False,
        "STATIC_ROOT": tmp_path,
        "STORAGES": MANIFEST,
        "WHITENOISE_AUTOREFRESH": False,
        "WHITENOISE_USE_FINDERS": False,
    }
    with override_settings(**production):
        call_command("collectstatic", interactive=False, verbosity=0)
        html = render_to_string("cya/home.html", request=RequestFactory().get("/"))
        css = re.search(r'href="/static/(cya/site\.[0-9a-f]{12}\.css)"', html)
        js = re.search(r'src="/static/(cya/vendor/htmx/htmx\.min\.[0-9a-f]{12}\.js)"', html)
        assert css, "pages link the stylesheet's content-hashed name"
        assert js, "pages link htmx's content-hashed name"
        serve = WhiteNoiseMiddleware(not_static)
        request = RequestFactory().get(f"/static/{css.group(1)}", HTTP_ACCEPT_ENCODING="gzip")
        response = serve(request)
        response.close()  # whitenoise streams the file: let it go

    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
    assert (tmp_path / "cya/vendor/htmx/LICENSE").exists()
