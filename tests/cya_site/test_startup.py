"""Server processes load every view and freeze start-up's objects before serving."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = """
import gc, sys
import {module}
views = ("games.api.views" in sys.modules, "tournaments.api.views" in sys.modules)
print(gc.get_freeze_count(), *views)
"""


@pytest.mark.parametrize("module", ["cya_site.wsgi", "cya_site.asgi"])
def test_the_entry_point_loads_every_view_and_freezes_what_it_loaded(module: str) -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cya_site.settings"}
    probe = PROBE.format(module=module)

    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.split()

    frozen, games_views, tournaments_views = int(out[0]), out[1], out[2]
    assert frozen > 50_000  # Django, DRF, every app: out of the collector's way
    assert (games_views, tournaments_views) == ("True", "True")
