"""Duplicate deals and their statistics: what the arena and the SDK's local runner share.

A deal is played once per rotation of the seats, the same cards every time, so that
every entry plays every chair and the luck of the deal cancels out. Figures are means
over deals with a normal 95% interval: a deal's rotations are one sample, since they
are not independent. Pure Python; the SDK (``cya-bot play``) ships this very module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt

Z95 = 1.96
DEAL_STRIDE = 100_003  # deal d of a run seeded s deals from s * DEAL_STRIDE + d


def deal_seeds(seed: int, deals: int) -> list[int]:
    """The seeds of a run's ``deals`` deals: the same run seed, the same deals."""
    return [seed * DEAL_STRIDE + d for d in range(deals)]


def rotation(seats: int, r: int) -> list[int]:
    """Rotation ``r`` of a table: item k is the entry that plays seat k."""
    return [(k + r) % seats for k in range(seats)]


@dataclass(frozen=True)
class Interval:
    """A mean and the half-width of its 95% confidence interval."""

    mean: float
    half: float


def interval(samples: Sequence[float]) -> Interval:
    """The mean of independent samples with a normal 95% interval."""
    n = len(samples)
    mean = sum(samples) / n
    if n < 2:
        return Interval(mean, float("inf"))
    var = sum((x - mean) ** 2 for x in samples) / (n - 1)
    return Interval(mean, Z95 * sqrt(var / n))
