"""Figures of the bots app that /metrics reads from the database at scrape time."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from bots.models import Match


def matches() -> Iterator[Metric]:
    """``cya_matches``: every kind and status, zero included, so a series never vanishes."""
    family = GaugeMetricFamily(
        "cya_matches",
        "Matches by kind and status, read from the database.",
        labels=["kind", "status"],
    )
    counts = Match.objects.values_list("kind", "status").annotate(n=Count("pk")).order_by()
    found = {(kind, status): n for kind, status, n in counts}
    for kind in Match.Kind.values:
        for status in Match.Status.values:
            family.add_metric([kind, status], found.get((kind, status), 0))
    yield family
