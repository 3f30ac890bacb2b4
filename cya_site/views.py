"""The landing page, the probes of load balancers and supervisors, and the scrape of
Prometheus (outside cya_site.metrics, which the error handling below it counts with)."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client.django import PrometheusDjangoView

from cya_site import health, metrics
from cya_site.errors import ApiError


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


# --- /metrics -------------------------------------------------------------------------


def allowed(request: HttpRequest) -> bool:
    """Whether the request may scrape: it bears ``METRICS_TOKEN``, or comes from one of
    ``METRICS_ALLOWED_NETWORKS``. Neither set: nobody may (the default)."""
    token: str = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return True
    networks: list[str] = settings.METRICS_ALLOWED_NETWORKS
    if networks:
        try:
            address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
        except ValueError:
            return False
        return any(address in ipaddress.ip_network(network) for network in networks)
    return False


class MetricsView(PrometheusDjangoView):
    """``GET /metrics``: the library's view, behind ``allowed``."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not allowed(request):
            message = (
                "Metrics are only for the configured scrapers: send the METRICS_TOKEN as a "
                "bearer token, or scrape from one of METRICS_ALLOWED_NETWORKS."
            )
            error = ApiError(403, "metrics_forbidden", message)
            return JsonResponse(error.body(), status=403)
        self.registry = metrics.registry()
        response: HttpResponseBase = super().dispatch(request, *args, **kwargs)
        return response
