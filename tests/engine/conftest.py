"""Hypothesis profiles for the engine's property tests.

``ci`` (loaded by default) keeps the property, round-trip and golden tests to about a
minute on a 2-core machine; ``thorough`` runs many more examples:

    HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/engine

Neither has a deadline: a whole random playout is one example, and its length varies.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Each example is a whole playout, far slower than hypothesis expects of a data draw,
# and the suite's autouse cache fixture (tests/conftest.py) is irrelevant to the engine.
_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]

settings.register_profile(
    "ci", max_examples=60, deadline=None, print_blob=True, suppress_health_check=_SUPPRESSED
)
settings.register_profile(
    "thorough",
    max_examples=1_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
