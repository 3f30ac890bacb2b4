"""The landing page, and the probes of load balancers and supervisors."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from cya_site import health


def home(request: HttpRequest) -> HttpResponse:
    """``/``: what the platform is, with links to every public part of it."""
    return render(request, "cya/home.html")


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """``/healthz``: liveness. 200 while this process serves requests; it touches no
    database or server, so a restart of one never makes a supervisor kill the web tier."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """``/readyz``: readiness. 200 when every check of ``cya_site.health`` passes, else
    503; the body names each check either way. Plain Django, outside the REST framework:
    no authentication, no throttle (a load balancer's probes must never be refused), and
    not in the OpenAPI schema, which describes the API under /api/v1/."""
    report = health.readiness()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
