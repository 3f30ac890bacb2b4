"""The site's users and pages: accounts and sign-in, languages and time zone, static files,
request size, game streams and the benchmarks' bare endpoint.
"""

from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_bool, env_int, env_str
from cya_site.settings.core import BASE_DIR, DEBUG, VAR_DIR

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# English, and German: the rules ship a German edition (RULES.md, seed DE).
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The club's time zone: night dates, "as of" dates and times on pages are read in it.
TIME_ZONE = env_str("TIME_ZONE", "UTC")
try:
    ZoneInfo(TIME_ZONE)
except (ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(f"TIME_ZONE must be an IANA time zone, not {TIME_ZONE!r}") from None
USE_I18N = True
USE_TZ = True

LOGIN_URL = "sign-in"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
# Development (and the tests, which run with DEBUG read from the environment): whitenoise
# finds files in the apps at each request, and needs no collected STATIC_ROOT.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Production serves collected files under content-hashed, pre-compressed names
    # (`manage.py collectstatic`); development reads them from the apps as they are.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Request bodies above this are refused with 413 payload_too_large (cya_site.errors).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 256 * 1024, minimum=1024)

# Game streams (games.api.stream): open streams a user may hold per server process, and
# the seconds of quiet after which a stream sends an empty line and checks for changes.
STREAMS_PER_USER = env_int("STREAMS_PER_USER", 64, minimum=1)
# Waits (long-polls and streams together, games.api.waits): open at once per client
# address and per signed-in account (429 beyond), and per server process (503 beyond).
WAITS_PER_ADDRESS = env_int("WAITS_PER_ADDRESS", 64, minimum=1)
WAITS_PER_ACCOUNT = env_int("WAITS_PER_ACCOUNT", 32, minimum=1)
WAITS_PER_PROCESS = env_int("WAITS_PER_PROCESS", 4000, minimum=1)
# The WSGI server answers a wait 421 wait_needs_asgi instead of holding a thread for it;
# true lets it wait (the tests' live server; never in production).
WAITS_ON_WSGI = env_bool("WAITS_ON_WSGI", False)
# Under the ASGI server, an anonymous long-poll on a game the process follows is answered
# on the event loop without Django's middleware or DRF (cya_site.lean); false: never.
LEAN_ANSWERS = env_bool("LEAN_ANSWERS", True)
STREAM_KEEPALIVE_SECONDS = env_int("STREAM_KEEPALIVE_SECONDS", 10, minimum=1)

# benchmarks/api.py's bare read/write endpoint (cya_site/bench.py); never on in production
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)

# Email: password resets and address confirmations (accounts.web.recovery). Development
# prints each message, its link included, on the console (`make run`); the tests use
# Django's in-memory outbox; production sets an SMTP server.
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Cover Your Assets <noreply@localhost>")
# How long a password-reset or address-confirmation link works.
PASSWORD_RESET_TIMEOUT = env_int("EMAIL_LINK_HOURS", 24, minimum=1) * 3600
