"""The database: DATABASE_URL (SQLite under VAR_DIR by default) and its engine's options."""

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_int, env_str
from cya_site.settings.core import VAR_DIR

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
