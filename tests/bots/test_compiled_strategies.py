"""The search player's hot modules compiled with the engine (``make engine``) choose
exactly like the pure ones, and load only when the engine runs compiled and they are fresh.

Games of greedy, shark, random and ismcts (``tests/bots/strategies_play.py``) are played
by both builds side by side, each in its own process, and every action compared. The build
is the engine identity test's (``tests/engine/test_compiled.py``): ``make engine``'s if
fresh, else one compiled into a temporary folder; skipped only where nothing compiles.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from bots.strategies import STRATEGIES, _loader
from tests.engine.test_compiled import ROOT, _engine_env, compiled_build  # noqa: F401

GAMES = 160


def _run(args: list[str], mode: str, build: Path | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=_engine_env(mode, build),
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )


def test_compiled_strategies_choose_every_action_like_the_pure_ones(
    compiled_build: Path,  # noqa: F811
) -> None:
    args = ["-m", "tests.bots.strategies_play", str(GAMES)]
    pure, compiled = _run(args, "pure", None), _run(args, "compiled", compiled_build)
    assert pure.returncode == 0, pure.stderr
    assert compiled.returncode == 0, compiled.stderr
    head_p, *games_p = pure.stdout.splitlines()
    head_c, *games_c = compiled.stdout.splitlines()
    assert head_p.split()[0] == "pure"
    assert not head_p.split()[1].startswith(str(compiled_build))
    build, builtin, search, names = head_c.split()
    assert build == "compiled"
    assert names == head_p.split()[3] == ",".join(STRATEGIES)  # arena reads them so
    for module in (builtin, search):  # both are the build's
        assert module.startswith(str(compiled_build / _loader.FOLDER)), module
    assert len(games_p) == GAMES
    for line_p, line_c in zip(games_p, games_c, strict=True):
        assert line_p == line_c, f"game {line_p.split()[0]}: the builds chose differently"


def _which(mode: str, build: Path) -> tuple[str, str]:
    """Where ``bots.strategies.builtin`` is loaded from, and what was logged."""
    code = "import bots.strategies.builtin as b; print(b.__file__)"
    done = _run(["-c", code], mode, build)
    return done.stdout.strip(), done.stderr.strip()


def test_the_strategies_run_pure_unless_the_engine_runs_compiled_and_they_are_fresh(
    compiled_build: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    source = str(ROOT / "bots" / "strategies" / "builtin.py")
    assert _which("compiled", compiled_build)[0].startswith(str(compiled_build))
    assert _which("pure", compiled_build) == (source, "")  # the engine pure: so are they
    stale = tmp_path / "stale"
    shutil.copytree(compiled_build, stale)
    manifest = stale / "manifest.json"
    fields = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**fields, "strategies_sha256": "0"}))
    where, logged = _which("compiled", stale)
    assert where == source
    assert len(logged.splitlines()) == 1  # one log line says why
    assert "are stale" in logged
