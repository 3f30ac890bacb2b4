"""URLs: each app's router under /api/v1/, the schema and its docs page, the admin, the pages."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from cya_site import errors, views
from cya_site import schema as _schema  # noqa: F401 - registers the OpenAPI extensions
from cya_site.bench import BenchReadWriteView
from cya_site.tracing import NOT_FOUND

# The admin's index leads with the operator's summary (cya_site.status), as manage.py status.
admin.site.index_template = "cya/admin/index.html"

urlpatterns = [
    path("api/v1/", include("accounts.api.urls")),
    path("api/v1/", include("games.api.urls")),
    path("api/v1/", include("bots.api.urls")),
    path("api/v1/", include("tournaments.api.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: no inline script for the CSP.
    path(
        "api/v1/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="cya/swagger_ui.html"),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
    # Prometheus, behind METRICS_TOKEN / METRICS_ALLOWED_NETWORKS (docs/operations.md)
    path("metrics", views.MetricsView.as_view(), name="metrics"),
    # Probes (docs/operations.md): plain views, unauthenticated, unthrottled, not in the schema.
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    # Pages: each app's web/ package, thin over the same services and selectors as the API.
    path("", views.home, name="home"),
    path("", include("accounts.web.urls")),
    path("", include("games.web.urls")),
    path("", include("bots.web.urls")),
    path("", include("tournaments.web.urls")),
    *(  # benchmarks/api.py's baseline; off unless BENCH_ENDPOINTS is set
        [path("api/v1/bench/rw/", BenchReadWriteView.as_view(), name="bench-rw")]
        if settings.BENCH_ENDPOINTS
        else []
    ),
    # Last: any other /api/ path is a JSON 404, also with DEBUG on.
    re_path(r"^api/", errors.api_not_found, name=NOT_FOUND),
    # and any other path is the site's 404 page, also with DEBUG on (never the technical one)
    re_path(r"^(?!static/)", errors.page_not_found, name=NOT_FOUND),
]

handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.not_found
handler500 = errors.server_error
