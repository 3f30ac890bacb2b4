"""docs/alerts.yml: valid rules (promtool, when installed) naming only exported metrics."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

from cya_site import metrics

ALERTS = Path(__file__).resolve().parents[2] / "docs" / "alerts.yml"
# Names in an expression that are PromQL, not metrics: functions, keywords, aggregations.
PROMQL = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "sum", "min", "max", "rate",
    "increase", "deriv", "histogram_quantile", "le", "up",
}  # fmt: skip
# Read at scrape time by cya_site.metrics._Live, not registered in a registry.
LIVE = {
    "cya_matches", "cya_database_up", "cya_celery_queue_length", "cya_celery_queue_oldest_seconds"
}  # fmt: skip
SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum"),
}


def _exported() -> set[str]:
    names = set(LIVE)
    for metric in (
        metrics.REQUEST_SECONDS,
        metrics.ACTIONS_SUBMITTED,
        metrics.ACTIONS_REFUSED,
        metrics.GAMES_STARTED,
        metrics.GAMES_ENDED,
        metrics.STREAMS_OPEN,
        metrics.MATCH_TRANSITIONS,
        metrics.SWEEP_RESENT,
        metrics.WEBHOOK_SECONDS,
        metrics.STRIKES,
        metrics.TASK_SECONDS,
    ):
        for family in metric.describe():  # the samples' names, whatever labels they get
            names.update(f"{family.name}{suffix}" for suffix in SUFFIXES[family.type])
    return names


def _rules() -> list[dict[str, str]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def test_every_alert_names_only_metrics_the_platform_exports() -> None:
    exported = _exported()
    assert "cya_http_request_duration_seconds_count" in exported  # the list is real
    rules = _rules()
    assert len(rules) >= 5
    for rule in rules:
        # drop label matchers, strings, ranges and grouping labels: metric names remain
        expr = re.sub(r'\{[^}]*\}|"[^"]*"|\[[^\]]*\]|\b(by|without) *\([^)]*\)', "", rule["expr"])
        names = set(re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr)) - PROMQL
        assert names <= exported, (rule["alert"], names - exported)


def test_the_alerts_cover_what_an_operator_must_hear_of() -> None:
    names = {rule["alert"] for rule in _rules()}

    assert {"CyaLadderStalled", "CyaDatabaseDown", "CyaBotsTimingOut", "CyaServerErrors"} <= names
    assert "CyaQueueGrowing" in names


def test_promtool_accepts_the_rules() -> None:
    promtool = shutil.which("promtool")
    assert promtool is not None, "apt-get install prometheus provides promtool"
    done = subprocess.run(
        [promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_registered_metrics_are_in_the_default_registry() -> None:
    assert REGISTRY.get_sample_value("cya_games_started_total") is not None
