"""Django settings: every environment differs only by the variables read here.

The defaults run on a bare machine (SQLite and an embedded Celery transport under
``var/``); production and CI set ``DATABASE_URL`` and ``REDIS_URL``. ``.env.example``
lists every variable.
"""

from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_bool, env_int, env_list, env_networks, env_rate, env_str

# Lets classes such as ModelAdmin be subscripted at run time, as their type stubs are.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
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
    "django.middleware.security.SecurityMiddleware",
    # Static files in production (compressed, cached forever under hashed names); under
    # `make run` Django's development server serves them before this is reached.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a signed-in player's chosen language wins over the browser's.
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
_default_sqlite = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
_database_url = env_str("DATABASE_URL", _default_sqlite)
try:
    _database = dj_database_url.parse(
        _database_url,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL cannot be read: {error}") from None
if _database["ENGINE"] == "django.db.backends.sqlite3":
    if _database_url == _default_sqlite:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
    # The dev server and the embedded Celery worker write concurrently: WAL lets readers
    # proceed during a write, and IMMEDIATE takes the write lock up front instead of
    # failing with "database is locked" when a read transaction later upgrades.
    _database["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
elif _database["ENGINE"] == "django.db.backends.postgresql":
    # Django turns psycopg's prepared statements off. Only cursors that bind parameters
    # on the server prepare, and the only ones are cya_site.rows' (the hot statements,
    # prepared at first use); every other query binds on the client and is unaffected.
    _options = _database.setdefault("OPTIONS", {})
    _options.setdefault("prepare_threshold", 5)
    # A server that accepts connections and then hangs must not hold a request, a task or
    # a readiness probe for the kernel's TCP timeout: libpq gives up connecting after this.
    _options.setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5, minimum=1))
    # ... and each is planned once: a prepared statement is otherwise planned afresh on
    # every run whenever PostgreSQL guesses a plan for its values may beat the generic
    # one, which for rows' keyed lookups and writes it never does (a ladder game's
    # statements: 0.7 of 3.7 ms of database CPU). Unprepared queries are unaffected.
    if "plan_cache_mode" not in _options.get("options", ""):
        _options["options"] = f"{_options.get('options', '')} -c plan_cache_mode=force_generic_plan"
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

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

# --- Redis: cache (throttle counters) and Celery ------------------------------------
REDIS_URL = env_str("REDIS_URL")

# Game streams (games.api.stream): open streams a user may hold per server process, and
# the seconds of quiet after which a stream sends an empty line and checks for changes.
STREAMS_PER_USER = env_int("STREAMS_PER_USER", 64, minimum=1)
STREAM_KEEPALIVE_SECONDS = env_int("STREAM_KEEPALIVE_SECONDS", 10, minimum=1)

# The bot ladder (bots.ladder): tables kept playing, their sizes, time control, exploration.
LADDER_TABLES = env_int("LADDER_TABLES", 2, minimum=0)
LADDER_SEATS = [int(n) for n in env_list("LADDER_SEATS", ["4"])]
if not LADDER_SEATS or any(not 2 <= n <= 6 for n in LADDER_SEATS):
    raise ImproperlyConfigured("LADDER_SEATS must list table sizes from 2 to 6")
LADDER_DECISION_MS = env_int("LADDER_DECISION_MS", 1000, minimum=50)
LADDER_TIME_BANK_MS = env_int("LADDER_TIME_BANK_MS", 15_000, minimum=0)
try:
    LADDER_EXPLORATION = float(env_str("LADDER_EXPLORATION", "0.2"))
except ValueError:
    raise ImproperlyConfigured("LADDER_EXPLORATION must be a number from 0 to 1") from None
if not 0 <= LADDER_EXPLORATION <= 1:
    raise ImproperlyConfigured("LADDER_EXPLORATION must be a number from 0 to 1")
LADDER_EVERY_SECONDS = env_int("LADDER_EVERY_SECONDS", 10, minimum=1)
# Bots at people's tables move one at a time, this long after the change before: people
# follow their moves one by one (bots.tables).
BOT_MOVE_DELAY_MS = env_int("BOT_MOVE_DELAY_MS", 800, minimum=0)
# Recovery (cya_site.dispatch): every SWEEP_EVERY_SECONDS, work left undone by a crash or
# an outage for more than SWEEP_AFTER_SECONDS (a match or a validation no worker holds, a
# deadline whose task was lost) is sent again; at most SWEEP_BATCH of each kind per sweep.
SWEEP_EVERY_SECONDS = env_int("SWEEP_EVERY_SECONDS", 30, minimum=1)
# how far back tournaments.sync_results looks for competition games whose take_result
# task was lost (a game's end sends one at once; this is only the safety net)
RESULTS_SWEEP_HOURS = env_int("RESULTS_SWEEP_HOURS", 24, minimum=1)
SWEEP_AFTER_SECONDS = env_int("SWEEP_AFTER_SECONDS", 120, minimum=1)
SWEEP_BATCH = env_int("SWEEP_BATCH", 100, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "ladder": {"task": "bots.schedule_ladder", "schedule": float(LADDER_EVERY_SECONDS)},
    "results": {"task": "tournaments.sync_results", "schedule": float(SWEEP_EVERY_SECONDS)},
    "sweep": {"task": "bots.sweep", "schedule": float(SWEEP_EVERY_SECONDS)},
    "deadlines": {"task": "games.sweep_deadlines", "schedule": float(SWEEP_EVERY_SECONDS)},
}

# Outgoing webhooks (bots' and clubs', cya_site.outbound) reach only public addresses, and
# these networks besides: none in production. `make run` and the tests allow loopback.
WEBHOOK_ALLOWED_NETWORKS = env_networks("WEBHOOK_ALLOWED_NETWORKS", [])

# benchmarks/api.py's bare read/write endpoint (cya_site/bench.py); never on in production
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)

CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # the throttle counts here on every request: a Redis out of reach must fail
            # fast (the throttle then lets requests through, cya_site.throttling)
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
# acks_late + reject_on_worker_lost redeliver a task whose worker died mid-way, so tasks
# must be idempotent (STYLE section 6); prefetch 1 keeps long tasks from queueing behind
# each other in one worker.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Most tasks write their outcome to the database; a task that is awaited opts in with
# ignore_result=False.
CELERY_TASK_IGNORE_RESULT = True
# Celery's Django fixup closes every database connection before and after each task
# unless told to reuse them, and a new PostgreSQL connection (a backend forked, its
# caches cold) costs more than a whole ladder game. Workers reuse them instead, under
# Django's own policy (CONN_MAX_AGE, CONN_HEALTH_CHECKS), which cya_site.celery applies
# around each task as Django does around each request.
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_RESULT_EXTENDED = True
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Faults (docs/operations.md): a worker outlives a Redis restart or outage. It reconnects
# to the broker for as long as it takes, instead of exiting after 100 tries (some 47
# minutes); cya_site.kombu_fixes keeps the reconnect itself from killing it.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A task that ends while Redis is down stores its result once Redis is back, retrying
# for up to about two minutes, instead of being recorded as failed by a ConnectionError.
CELERY_RESULT_BACKEND_ALWAYS_RETRY = True
CELERY_RESULT_BACKEND_MAX_RETRIES = 20
# A task running when the connection broke goes on and is acknowledged when it ends: a
# Redis ack deletes keys, which works over any connection. Celery 6 turns this on by
# default, which would kill and later rerun every running match on a Redis blip.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any]
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # An unacknowledged task (acks_late) whose worker died comes back after this long. A
    # task that runs longer is delivered a second time too: the long ones (a match, a
    # validation) hold a lease, so that copy finds it held and leaves at once.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("BROKER_VISIBILITY_TIMEOUT", 300, minimum=10)
    }
else:
    # Embedded transport for a bare machine: kombu's filesystem broker, where the
    # producer's "out" folder is the consumer's "in" folder (one machine, one queue set),
    # in cya_site.broker's first-in, first-out order (kombu's own sorts by a clock's text).
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT = "cya_site.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "control_folder": str(_broker_dir / "control"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
        # a bot's move at a people's table waits on it: look for new tasks often (a
        # directory listing) rather than kombu's once a second
        "polling_interval": 0.1,
    }
    CELERY_RESULT_BACKEND = f"file://{VAR_DIR / 'results'}"
    for _folder in ("queue", "control", "processed"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
    (VAR_DIR / "results").mkdir(parents=True, exist_ok=True)

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

# --- Django REST framework -------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Closed by default; endpoints open to anonymous clients say so themselves.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's JSON parser, refusing bodies nested past MAX_JSON_DEPTH before decoding them
    "DEFAULT_PARSER_CLASSES": ["cya_site.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "cya_site.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # one round trip for every limit of a request (cya_site/throttling.py)
    "DEFAULT_THROTTLE_CLASSES": ["cya_site.throttling.RequestRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "120/min"),
        "user": env_rate("THROTTLE_USER", "6000/min"),
        "auth": env_rate("THROTTLE_AUTH", "10/min"),
        # bots answer many decisions a minute; one seat can hardly need more than this
        "actions": env_rate("THROTTLE_ACTIONS", "6000/min"),
        "wait": env_rate("THROTTLE_WAIT", "600/min"),
    },
    # 0: throttles identify clients by REMOTE_ADDR and ignore a spoofable X-Forwarded-For.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
    "EXCEPTION_HANDLER": "cya_site.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Cover Your Assets platform API",
    "DESCRIPTION": "Games, bots and tournaments for the card game Cover Your Assets.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # every number in a path is <id:...> (cya_site.routes): an integer up to routes.MAX_ID
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    # one name per choice set that several serializers share
    "ENUM_NAME_OVERRIDES": {
        "DecisionKindEnum": "games.engine.state.DECISION_NAMES",
        "GameStatusEnum": "games.models.Game.Status",
        "BotKindEnum": "bots.models.Bot.Kind",
        "MatchKindEnum": "bots.models.Match.Kind",
        "MatchStatusEnum": "bots.models.Match.Status",
        "VersionStatusEnum": "bots.models.BotVersion.Status",
        "StrikeReasonEnum": "bots.models.Strike.Reason",
        "CompetitionKindEnum": "tournaments.models.Competition.Kind",
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "RoundStatusEnum": "tournaments.models.TournamentRound.Status",
        "RecordStatusEnum": "tournaments.models.ScoreRecord.Status",
        "RecordKindEnum": "tournaments.models.ScoreRecord.Kind",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.stream_schema.document_stream",  # an async view, outside DRF
        "cya_site.schema.add_error_responses",
    ],
}

# --- Metrics (cya_site.metrics): who may read /metrics ----------------------------------
# A scraper bearing this token (Authorization: Bearer <token>), or any client from these
# networks. Neither set (the default): /metrics answers 403 to everyone.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS", [])
