"""The landing page: what this is, and where to go."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """``/``: what the platform is, with links to every public part of it."""
    return render(request, "cya/home.html")
