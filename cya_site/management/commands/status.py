"""``manage.py status``: readiness and the ladder's state, for an operator or a monitor.

Exit codes (cya_site.status): 0 all is well; 1 the ladder needs a human (a stuck match,
stalled ratings, idle work the sweeps do not send again); 2 bad usage; 3 a readiness
check is down (the database, Redis, the broker or the workers), which wins over 1.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from typing import Any, ClassVar

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from cya_site import status
from cya_site.status import age_text


def minutes(text: str) -> timedelta:
    """A positive number of minutes (argparse reports anything else as bad usage)."""
    value = float(text)
    if not value > 0:
        raise ValueError(text)
    return timedelta(minutes=value)


class Command(BaseCommand):
    help = (
        "Print readiness (database, Redis, broker, workers) and the ladder's state; exit 0 "
        "when all is well, 1 when the ladder needs a human, 3 when a check is down."
    )
    # must answer while the database is away
    requires_system_checks: ClassVar[list[str]] = []  # type: ignore[misc]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print JSON, for machines.")
        parser.add_argument(
            "--stuck-minutes",
            type=minutes,
            default=status.STUCK_AFTER,
            help="A match running longer than this is stuck (default 60).",
        )
        parser.add_argument(
            "--stall-minutes",
            type=minutes,
            default=status.STALL_AFTER,
            help="No rating change for this long stalls a ladder that has tables "
            "and ready versions (default 60).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = status.site_status(
            timezone.now(),
            stuck_after=options["stuck_minutes"],
            stall_after=options["stall_minutes"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write("\n".join(render(report)))
        sys.stdout.flush()
        if report["exit_code"]:
            sys.exit(report["exit_code"])


def render(report: status.Status) -> list[str]:
    """The report as lines of text."""
    ready = report["readiness"]
    lines = [f"readiness: {ready['status']}"]
    for name, result in ready["checks"].items():
        lines.append(f"  {name:<9} {'ok  ' if result['ok'] else 'DOWN'} {_check_detail(result)}")
    lines += _ladder_lines(report["ladder"])
    if report["problems"]:
        lines.append("needs a human:")
        lines += [f"  {p['code']}: {p['message']}" for p in report["problems"]]
    else:
        lines.append("nothing needs a human")
    return lines


def _check_detail(result: dict[str, Any]) -> str:
    parts = [f"{result['ms']:g} ms"] if "ms" in result else []
    if "workers" in result:
        seen = ", ".join(f"{name} {age_text(age)} ago" for name, age in result["workers"].items())
        parts.append(f"{result['answered']} answered" + (f" (last seen: {seen})" if seen else ""))
    if "queues" in result:
        parts += [_queue_text(name, found) for name, found in result["queues"].items()]
    if not result["ok"]:
        parts.append(str(result.get("error", "")))
    return "  ".join(parts)


def _queue_text(name: str, found: dict[str, Any]) -> str:
    """``batch 12 waiting (oldest 40 s)``, ``interactive 0 waiting``."""
    if found["depth"] < 0:
        return f"{name} unknown"
    oldest = found["oldest_seconds"]
    return f"{name} {found['depth']} waiting" + (
        f" (oldest {age_text(oldest)})" if oldest is not None else ""
    )


def _ladder_lines(ladder: dict[str, Any]) -> list[str]:
    if "error" in ladder:
        return [f"ladder: unreadable ({ladder['error']})"]
    oldest, change = ladder["oldest_running"], ladder["last_rating_change"]
    idle = ", ".join(f"{kind} {n}" for kind, n in ladder["idle"].items())
    return [
        f"ladder: {ladder['tables']} tables, {ladder['ready_versions']} ready versions",
        "  matches: " + ", ".join(f"{s} {n}" for s, n in ladder["matches"].items()),
        "  oldest running match: "
        + (f"{oldest['id']} ({oldest['kind']}), started {age_text(oldest['age_seconds'])} ago"
           if oldest else "none"),
        "  last rating change: "
        + (f"{age_text(change['age_seconds'])} ago ({change['at']})" if change else "never"),
        f"  versions waiting for validation: {ladder['validations_waiting']}",
        f"  idle work the sweeps would send again: {idle}",
    ]  # fmt: skip
