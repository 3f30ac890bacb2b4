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

import pytest

from bots.strategies import STRATEGIES, _loader
from tests.engine.test_compiled import ROOT, _engine_env, build_into, compiled_build  # noqa: F401

GAMES = 160


@pytest.fixture(scope="session")
def strategies_build(compiled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    """The engine's build if the strategies in it are fresh too, else one built now."""
    if _loader.build_problem(compiled_build) is None:
        return compiled_build
    return build_into(tmp_path_factory.mktemp("strategies") / "compiled")


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
    strategies_build: Path,
) -> None:
    args = ["-m", "tests.bots.strategies_play", str(GAMES)]
    pure, compiled = _run(args, "pure", None), _run(args, "compiled", strategies_build)
    assert pure.returncode == 0, pure.stderr
    assert compiled.returncode == 0, compiled.stderr
    head_p, *games_p = pure.stdout.splitlines()
    head_c, *games_c = compiled.stdout.splitlines()
    assert head_p.split()[0] == "pure"
    assert not head_p.split()[1].startswith(str(strategies_build))
    build, builtin, search, names = head_c.split()
    assert build == "compiled"
    assert names == head_p.split()[3] == ",".join(STRATEGIES)  # arena reads them so
    for module in (builtin, search):  # both are the build's
        assert module.startswith(str(strategies_build / _loader.FOLDER)), module
    assert len(games_p) == GAMES
    for line_p, line_c in zip(games_p, games_c, strict=True):
        assert line_p == line_c, f"game {line_p.split()[0]}: the builds chose differently"


def _which(mode: str, build: Path) -> tuple[str, str]:
    """Where ``bots.strategies.builtin`` is loaded from, and what was logged."""
    code = "import bots.strategies.builtin as b; print(b.__file__)"
    done = _run(["-c", code], mode, build)
    return done.stdout.strip(), done.stderr.strip()


def test_the_strategies_run_pure_unless_the_engine_runs_compiled_and_they_are_fresh(
    strategies_build: Path,
    tmp_path: Path,
) -> None:
    source = str(ROOT / "bots" / "strategies" / "builtin.py")
    assert _which("compiled", strategies_build)[0].startswith(str(strategies_build))
    assert _which("pure", strategies_build) == (source, "")  # the engine pure: so are they
    stale = tmp_path / "stale"
    shutil.copytree(strategies_build, stale)
    manifest = stale / "manifest.json"
    fields = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**fields, "strategies_sha256": "0"}))
    where, logged = _which("compiled", stale)
    assert where == source
    assert len(logged.splitlines()) == 1  # one log line says why
    assert "are stale" in logged
