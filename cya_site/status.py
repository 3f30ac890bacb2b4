"""The operator's summary: readiness plus the ladder's state, and what needs a human.

``manage.py status`` prints it (and exits with ``exit_code``), the admin's index shows it
(cya_site/templatetags/status.py). It reads; it never marks or resends anything (the
sweeps do that): the counts of idle work come from the sweeps' own queries.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count

from bots import recovery
from bots.models import BotVersion, Match, RatingChange
from cya_site import health
from games import selectors as game_selectors

# Defaults of the thresholds past which something needs a human (``manage.py status``
# takes others). A ladder match of four webhook bots answering near their deadline plays
# for some twenty minutes; an hour is well past any match that is still moving.
STUCK_AFTER = timedelta(minutes=60)
# With LADDER_TABLES tables playing, ratings move every few minutes.
STALL_AFTER = timedelta(minutes=60)
# Interactive work (a bot's move at a people's table) is taken within a second or two;
# waiting longer than this, its workers are all busy or gone.
INTERACTIVE_LATE_SECONDS = 30.0

# Exit codes of ``manage.py status`` (2 is argparse's: bad usage).
OK = 0
NEEDS_HUMAN = 1  # the ladder: a stuck match, stalled ratings, work the sweeps do not resend
DOWN = 3  # a readiness check failed: the database, Redis, the broker or the workers

Status = dict[str, Any]


def site_status(
    now: datetime,
    *,
    stuck_after: timedelta = STUCK_AFTER,
    stall_after: timedelta = STALL_AFTER,
    checks: health.Result | None = None,
) -> Status:
    """Everything the operator sees, JSON-ready (times as ISO text, ages in seconds),
    with ``problems``: ``{"code", "message"}`` for each thing that needs a human."""
    ready = health.readiness() if checks is None else checks
    ladder = ladder_state(now)
    problems = [
        {"code": "check_down", "message": f"{name}: {result.get('error', 'down')}"}
        for name, result in ready["checks"].items()
        if not result["ok"]
    ]
    queues = ready["checks"].get("queues", {}).get("queues", {})
    problems += queue_problems(queues)
    if ready["checks"].get("database", {"ok": True})["ok"]:
        problems += ladder_problems(now, ladder, stuck_after, stall_after, queues)
    status: Status = {"readiness": ready, "ladder": ladder, "problems": problems}
    status["exit_code"] = exit_code(status)
    return status


def exit_code(status: Status) -> int:
    """DOWN if a readiness check failed, else NEEDS_HUMAN if any problem, else OK."""
    if any(problem["code"] == "check_down" for problem in status["problems"]):
        return DOWN
    return NEEDS_HUMAN if status["problems"] else OK


def ladder_state(now: datetime) -> Status:
    """Matches by status, the oldest running match, the last rating change, validations
    waiting, and the work the sweeps would send again now. Empty when the database is
    out of reach (the readiness checks say so)."""
    try:
        return _ladder_state(now)
    except Exception as error:  # the database check names the outage
        return {"error": f"{type(error).__name__}: {error}"}


def _ladder_state(now: datetime) -> Status:
    counts = dict(Match.objects.values_list("status").annotate(n=Count("pk")).order_by())
    oldest = (
        Match.objects.filter(status=Match.Status.RUNNING, started_at__isnull=False)
        .order_by("started_at")
        .values("pk", "kind", "started_at")
        .first()
    )
    last_change = RatingChange.objects.order_by("-created_at").values("created_at").first()
    ready = BotVersion.objects.filter(status=BotVersion.Status.READY, bot__is_active=True)
    waiting = BotVersion.objects.filter(status__in=recovery.VALIDATING).count()
    return {
        "tables": settings.LADDER_TABLES,
        "matches": {status: counts.get(status, 0) for status in Match.Status.values},
        "oldest_running": oldest
        and _aged(now, oldest["started_at"] or now, id=oldest["pk"], kind=oldest["kind"]),
        "last_rating_change": last_change and _aged(now, last_change["created_at"]),
        "ready_versions": ready.count(),
        "last_validated": _latest_validation(ready, now),
        "validations_waiting": waiting,
        "idle": idle_work(now),
    }


def _latest_validation(ready: Any, now: datetime) -> Status | None:
    at = ready.order_by("-validated_at").values_list("validated_at", flat=True).first()
    return _aged(now, at) if at else None


def _aged(now: datetime, at: datetime, **more: Any) -> Status:
    return {**more, "at": at.isoformat(), "age_seconds": round((now - at).total_seconds(), 1)}


def idle_work(now: datetime) -> dict[str, int]:
    """What the sweeps would send again at ``now``: matches and validations no worker
    holds, bot turns at people's tables, overdue timed decisions."""
    return {
        **recovery.idle_counts(now),
        "turns": len(recovery.idle_turns(now)),
        "deadlines": game_selectors.overdue_decisions(now).count(),
    }


def queue_problems(queues: dict[str, Status]) -> list[dict[str, str]]:
    """Interactive work that has waited too long in its queue (cya_site.backlog)."""
    name = settings.CELERY_TASK_ROUTES["bots.play_turn"]["queue"]
    found = queues.get(name, {})
    late = found.get("oldest_seconds")
    if late is None or late <= INTERACTIVE_LATE_SECONDS:
        return []
    return [{
        "code": "interactive_backlog",
        "message": f"{found['depth']} tasks wait on {name}, the oldest for {age_text(late)}: "
        f"every worker taking {name} is busy or gone; start more "
        f"(celery --app cya_site worker --queues {name})",
    }]  # fmt: skip


def ladder_problems(
    now: datetime,
    ladder: Status,
    stuck_after: timedelta,
    stall_after: timedelta,
    queues: dict[str, Status] | None = None,
) -> list[dict[str, str]]:
    """The ladder's findings that need a human; ``queues`` (the readiness check's) tells
    workers too busy to take the sweeps apart from a beat that does not send them."""
    if "error" in ladder:
        return [{"code": "ladder_unreadable", "message": ladder["error"]}]
    problems = []
    oldest = ladder["oldest_running"]
    if oldest and oldest["age_seconds"] > stuck_after.total_seconds():
        running, limit = age_text(oldest["age_seconds"]), age_text(stuck_after.total_seconds())
        problems.append({
            "code": "match_stuck",
            "message": f"match {oldest['id']} has been running for {running} (more than {limit})",
        })  # fmt: skip
    if _stalled(ladder, stall_after):
        problems.append({
            "code": "ladder_stalled",
            "message": f"no rating change for more than {age_text(stall_after.total_seconds())} "
            f"with {ladder['tables']} ladder tables and {ladder['ready_versions']} ready versions",
        })  # fmt: skip
    # The sweeps run every SWEEP_EVERY_SECONDS: work still idle three sweeps later was
    # not sent again, so beat (or the sweep itself) is not running.
    grace = timedelta(seconds=3 * settings.SWEEP_EVERY_SECONDS)
    unsent = {kind: n for kind, n in idle_work(now - grace).items() if n}
    if unsent:
        listed = ", ".join(f"{n} {kind}" for kind, n in unsent.items())
        problems.append({
            "code": "work_not_resent",
            "message": f"idle work the sweeps have not sent again: {listed}; "
            + _why_not_resent(queues or {}, grace),
        })  # fmt: skip
    return problems


def _why_not_resent(queues: dict[str, Status], grace: timedelta) -> str:
    """Beat missing, or the sweeps sent and waiting behind busy workers: the sweep's
    queue tells (its oldest task older than the sweeps' grace: they are queued)."""
    name = settings.CELERY_TASK_ROUTES["bots.sweep"]["queue"]
    found = queues.get(name, {})
    waited = found.get("oldest_seconds")
    if waited is not None and waited > grace.total_seconds():
        return (
            f"beat sends them, but they wait on {name} behind {found['depth']} tasks (the "
            f"oldest for {age_text(waited)}): its workers are busy or gone"
        )
    return "is beat running?"


def _stalled(ladder: Status, stall_after: timedelta) -> bool:
    """Whether ratings should have moved and did not: the ladder has tables and enough
    ready versions for its smallest table, and neither the last rating change nor the
    last validation (when the ladder could start) is recent."""
    if not ladder["tables"] or ladder["ready_versions"] < min(settings.LADDER_SEATS):
        return False
    marks = [ladder["last_rating_change"], ladder["last_validated"]]
    ages = [mark["age_seconds"] for mark in marks if mark]
    return not ages or min(ages) > stall_after.total_seconds()


def age_text(seconds: float) -> str:
    """``42 s``, ``5 min``, ``3.5 h``, ``2.0 d``: an age as an operator reads it."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"
