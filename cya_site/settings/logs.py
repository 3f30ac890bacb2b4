"""Logging: LOG_LEVEL, the access log, and JSON lines on stderr."""

from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_bool, env_str

# --- Logging ----------------------------------------------------------------------------
# Django prints a server error's traceback to the console only while DEBUG is on, and
# otherwise mails it to ADMINS: with DEBUG off, a 500 would leave no trace at all. Errors
# of requests (and anything else at LOG_LEVEL or above) go to stderr whatever DEBUG is,
# where gunicorn, uvicorn, Celery and systemd pass them on.
LOG_LEVEL = env_str("LOG_LEVEL", "WARNING").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise ImproperlyConfigured(
        f"LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {LOG_LEVEL!r}"
    )
# A JSON line per request on stderr (cya_site.access), whatever LOG_LEVEL says.
ACCESS_LOG = env_bool("ACCESS_LOG", True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # One JSON object a line, each with the request id of the request or task that
    # logged it (cya_site.tracing): "Tracing a request" in docs/operations.md.
    "formatters": {"line": {"()": "cya_site.tracing.JsonFormatter"}},
    "filters": {"request": {"()": "cya_site.tracing.RequestContext"}},
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "formatter": "line", "filters": ["request"]}
    },
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        # propagate=False: not printed twice by Django's own console handler under DEBUG
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        # one line per request: route, status, user, duration (ACCESS_LOG=false: none)
        "cya_site.access": {"level": "INFO" if ACCESS_LOG else "WARNING"},
    },
}
