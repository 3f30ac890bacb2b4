"""Background work: Redis, the cache, the bot ladder, recovery sweeps and the beat
schedule, outgoing webhooks' networks, and Celery (broker, results, retries).
"""

from typing import Any

from django.core.exceptions import ImproperlyConfigured

from cya_site import queues
from cya_site.env import env_int, env_list, env_networks, env_str
from cya_site.settings.core import VAR_DIR
from cya_site.settings.web import TIME_ZONE

# --- Redis: cache (throttle counters) and Celery ------------------------------------
REDIS_URL = env_str("REDIS_URL")

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
# Health (bots.health): a ready version is paused, off the ladder, after BOT_PAUSE_STRIKES
# strikes in a row across games (three put one game's seat on autopilot, so ten span
# four games), or once BOT_PAUSE_AUTOPILOT_GAMES of its games went to the autopilot
# within BOT_PAUSE_WINDOW_MINUTES. A dead bot on the ladder thus stops in a minute or
# two, not after dozens of lost games.
BOT_PAUSE_STRIKES = env_int("BOT_PAUSE_STRIKES", 10, minimum=1)
BOT_PAUSE_AUTOPILOT_GAMES = env_int("BOT_PAUSE_AUTOPILOT_GAMES", 3, minimum=1)
BOT_PAUSE_WINDOW_MINUTES = env_int("BOT_PAUSE_WINDOW_MINUTES", 60, minimum=1)
# Challenges (bots.challenges): how many an owner may start in any 24 hours; one more is
# refused 429 too_many_challenges with Retry-After until the oldest is a day old.
CHALLENGES_PER_DAY = env_int("CHALLENGES_PER_DAY", 20, minimum=1)
# A match (ladder, bot tournament table) is played in slices: a task plays its games one
# after another for this long (a game at least), then sends the rest as a new task, so a
# batch worker is never held for minutes (bots.tasks.play_match).
MATCH_SLICE_SECONDS = env_int("MATCH_SLICE_SECONDS", 5, minimum=0)
# A bot's decision log (bots.decision_log: each answer, latency, strike and debug note,
# shown only to its owner) is kept this many days, then deleted by bots.expire_decision_logs,
# which beat runs every DECISION_LOG_SWEEP_SECONDS.
DECISION_LOG_DAYS = env_int("DECISION_LOG_DAYS", 30, minimum=1)
DECISION_LOG_SWEEP_SECONDS = env_int("DECISION_LOG_SWEEP_SECONDS", 3600, minimum=1)
# Bots at people's tables move one at a time, this long after the change before: people
# follow their moves one by one (bots.tables).
BOT_MOVE_DELAY_MS = env_int("BOT_MOVE_DELAY_MS", 800, minimum=0)
# A bot turn at a people's table that has not come TURN_LATE_SECONDS after it was due (its
# task lost to a broker restart or a dead worker) is sent again; beat looks for such turns
# every TURN_CHECK_SECONDS (bots.check_turns), so people never wait for the sweep.
TURN_CHECK_SECONDS = env_int("TURN_CHECK_SECONDS", 2, minimum=1)
TURN_LATE_SECONDS = env_int("TURN_LATE_SECONDS", 3, minimum=1)
# Recovery (cya_site.dispatch): every SWEEP_EVERY_SECONDS, work left undone by a crash or
# an outage for more than SWEEP_AFTER_SECONDS (a match or a validation no worker holds, a
# deadline whose task was lost) is sent again; at most SWEEP_BATCH of each kind per sweep.
SWEEP_EVERY_SECONDS = env_int("SWEEP_EVERY_SECONDS", 30, minimum=1)
# how far back tournaments.sync_results looks for competition games whose take_result
# task was lost (a game's end sends one at once; this is only the safety net)
RESULTS_SWEEP_HOURS = env_int("RESULTS_SWEEP_HOURS", 24, minimum=1)
SWEEP_AFTER_SECONDS = env_int("SWEEP_AFTER_SECONDS", 120, minimum=1)
SWEEP_BATCH = env_int("SWEEP_BATCH", 100, minimum=1)
# A run (a match's slice, a validation, a bot turn) holds its work's lease (bots.leases)
# for this long, renewed every third of it while it runs: a worker that died lets go this
# long after its last renewal, and a database restart shorter than it costs nothing.
LEASE_SECONDS = env_int("LEASE_SECONDS", 30, minimum=3)
# Quick pairing (tournaments.quickplay) pairs a queue when someone joins or polls, and
# beat pairs every queue this often besides: a bot fill that came due seats a person
# whose page is closed.
PAIRING_EVERY_SECONDS = env_int("PAIRING_EVERY_SECONDS", 5, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "ladder": {"task": "bots.schedule_ladder", "schedule": float(LADDER_EVERY_SECONDS)},
    "results": {"task": "tournaments.sync_results", "schedule": float(SWEEP_EVERY_SECONDS)},
    "sweep": {"task": "bots.sweep", "schedule": float(SWEEP_EVERY_SECONDS)},
    "deadlines": {"task": "games.sweep_deadlines", "schedule": float(SWEEP_EVERY_SECONDS)},
    "turns": {"task": "bots.check_turns", "schedule": float(TURN_CHECK_SECONDS)},
    "pairing": {"task": "tournaments.pair_queues", "schedule": float(PAIRING_EVERY_SECONDS)},
    "decision_logs": {
        "task": "bots.expire_decision_logs",
        "schedule": float(DECISION_LOG_SWEEP_SECONDS),
    },
}

# Outgoing webhooks (bots' and clubs', cya_site.outbound) reach only public addresses, and
# these networks besides: none in production. `make run` and the tests allow loopback.
WEBHOOK_ALLOWED_NETWORKS = env_networks("WEBHOOK_ALLOWED_NETWORKS", [])

CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # the throttle counts here on every request: a Redis out of reach must fail
            # fast (the throttle then lets requests through, cya_site.throttling)
            "OPTIONS": {
                "socket_connect_timeout": 1,
                "socket_timeout": 1,
                # one pool per process, not one per request under ASGI (cya_site.caches)
                "pool_class": "cya_site.caches.SharedConnectionPool",
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Queues by latency class (cya_site.queues): interactive, batch and outbound work each on
# queues of their own, taken by workers of their own. CELERY_QUEUE_PREFIX keeps two sites
# (or a benchmark) sharing one broker apart.
CELERY_QUEUE_PREFIX = env_str("CELERY_QUEUE_PREFIX", "")
CELERY_TASK_ROUTES = queues.routes(CELERY_QUEUE_PREFIX)
# a task no route names (none should: tests/cya_site/test_queues.py) is interactive work
CELERY_TASK_DEFAULT_QUEUE = queues.queue_name(CELERY_QUEUE_PREFIX, queues.INTERACTIVE)

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
    CELERY_BROKER_URL = "filesystem://localhost/"  # a host, or kombu warns of its absence
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
