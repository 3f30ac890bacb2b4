"""Core settings: paths, DEBUG, the secret key, hosts, apps, middleware, URLs, templates.

The first subject of cya_site.settings; it runs django_stubs_ext.monkeypatch() before
anything else.
"""

from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_bool, env_list, env_str

# Lets classes such as ModelAdmin be subscripted at run time, as their type stubs are.
django_stubs_ext.monkeypatch()

# The repository root: this file is cya_site/settings/core.py.
BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Runtime files of the embedded defaults (SQLite, broker folders, beat schedule).
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var"))).resolve()

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-never-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",  # the lockout after failed sign-ins (cya_site.settings.security)
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "cya_site",  # the pages' shared templates, static files and template tags
    "accounts",
    "games",
    "bots",
    "tournaments",
]

MIDDLEWARE = [
    # First: the request id (X-Request-ID) covers everything below, and the access log
    # line and latency sample time all of it (cya_site.tracing).
    "cya_site.tracing.RequestMiddleware",
    # Django's own middleware, its hooks run on the event loop under ASGI instead of a
    # thread hop each (cya_site.middleware); under WSGI as Django runs them.
    "cya_site.middleware.SecurityMiddleware",
    # The response headers of cya_site.settings.security.
    "cya_site.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # Static files in production (compressed, cached forever under hashed names); under
    # `make run` Django's development server serves them before this is reached.
    "cya_site.static.StaticFilesMiddleware",  # WhiteNoise, async capable
    "cya_site.middleware.SessionMiddleware",
    "cya_site.middleware.LocaleMiddleware",
    "cya_site.middleware.CommonMiddleware",
    "cya_site.middleware.CsrfViewMiddleware",
    "cya_site.middleware.AuthenticationMiddleware",
    # After authentication: a signed-in player's chosen language wins over the browser's.
    "accounts.middleware.UserLanguageMiddleware",
    "cya_site.middleware.MessageMiddleware",
    "cya_site.middleware.XFrameOptionsMiddleware",
    # A page view's Http404 is the site's 404 page, also with DEBUG on (cya_site.errors).
    "cya_site.errors.PageNotFoundMiddleware",
    # Last: it turns a sign-in its backend locked out into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "cya_site.urls"
WSGI_APPLICATION = "cya_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context.your_turn",  # the "your turn" strip of every page
            ],
        },
    },
]
