"""The project's URLs plus a view that fails, to exercise the 500 handler."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from cya_site.urls import handler400, handler403, handler404, handler500, urlpatterns


def explode(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("boom")


urlpatterns = [
    path("api/v1/explode/", explode),
    path("explode/", explode),
    *urlpatterns,
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
