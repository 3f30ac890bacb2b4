"""The compiled engine (``make engine``, mypyc) plays exactly like the pure one.

10,000 seeded games are played by both builds side by side, each in its own process
(``tests/engine/identity_play.py``): the same seeded chooser picks from each one's legal
list, and every state after every action is compared (by a digest of all its fields). The
build is the one ``make engine`` made if it is fresh, else one compiled here into a
temporary folder; without a C compiler or mypyc the test is skipped, saying so. Also: the
loader runs the pure modules when the build is stale, missing, or ``CYA_ENGINE=pure``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import _loader

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "tools" / "build_engine.py"
GAMES = 10_000
NO_TOOLCHAIN = 3  # tools/build_engine.py's exit status when nothing can be compiled


@pytest.fixture(scope="session")
def compiled_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh compiled build: ``make engine``'s, or one built now."""
    if _loader.build_problem(_loader.DEFAULT_BUILD) is None:
        return _loader.DEFAULT_BUILD
    return build_into(tmp_path_factory.mktemp("engine") / "compiled")


def build_into(out: Path) -> Path:
    """``make engine``'s build, compiled into ``out`` (the test skips without a compiler)."""
    done = subprocess.run(
        [sys.executable, str(BUILD), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode == NO_TOOLCHAIN:
        pytest.skip(f"no compiled engine can be built here: {done.stdout.strip()}")
    assert done.returncode == 0, f"make engine failed:\n{done.stdout}\n{done.stderr}"
    return out


def _engine_env(mode: str, build: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "CYA_ENGINE": mode, "PYTHONPATH": str(ROOT)}
    env.pop("CYA_ENGINE_BUILD", None)
    if build is not None:
        env["CYA_ENGINE_BUILD"] = str(build)
    return env


def _start(mode: str, build: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.engine.identity_play", "0", str(GAMES)],
        cwd=ROOT,
        env=_engine_env(mode, build),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_compiled_engine_plays_10000_games_state_by_state_like_the_pure_one(
    compiled_build: Path,
) -> None:
    with _start("pure") as pure, _start("compiled", compiled_build) as compiled:
        _compare(pure, compiled, compiled_build)


def _compare(
    pure: subprocess.Popen[str], compiled: subprocess.Popen[str], compiled_build: Path
) -> None:
    assert pure.stdout is not None
    assert compiled.stdout is not None
    # the first line says which engine each process runs
    assert pure.stdout.readline().split()[0] == "pure"
    build, state_file = compiled.stdout.readline().split()
    assert build == "compiled"
    assert state_file.startswith(str(compiled_build)), state_file  # state is the mypyc module
    games = 0
    for line_p, line_c in zip(pure.stdout, compiled.stdout, strict=True):
        seed, actions_p, digests_p = line_p.split()
        seed_c, actions_c, digests_c = line_c.split()
        assert seed == seed_c
        states_p, states_c = digests_p.split(","), digests_c.split(",")
        if states_p != states_c:
            pairs = enumerate(zip(states_p, states_c, strict=False))
            at = next((i for i, (a, b) in pairs if a != b), min(len(states_p), len(states_c)))
            raise AssertionError(
                f"game {seed}: the states differ after action {at} "
                f"(actions {actions_p.split(',')[:at]}); compiled chose "
                f"{actions_c.split(',')[: at + 1]}"
            )
        assert actions_p == actions_c
        games += 1
    for proc in (pure, compiled):
        assert proc.stderr is not None
        errors = proc.stderr.read()
        assert proc.wait() == 0, errors
    assert games == GAMES


def _which(mode: str, build: Path | None = None) -> tuple[str, str]:
    """Which engine ``games.engine`` loads, and what it logged."""
    done = subprocess.run(
        [sys.executable, "-c", "import games.engine as e; print(e.ENGINE_BUILD)"],
        cwd=ROOT,
        env=_engine_env(mode, build),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip(), done.stderr.strip()


def test_the_loader_runs_the_pure_engine_without_a_fresh_build(
    compiled_build: Path, tmp_path: Path
) -> None:
    assert _which("auto", compiled_build) == ("compiled", "")
    assert _which("pure", compiled_build) == ("pure", "")
    assert _which("auto", tmp_path) == ("pure", "")  # no build there: silently pure
    stale = tmp_path / "stale"
    shutil.copytree(compiled_build, stale)
    manifest = stale / _loader.MANIFEST
    manifest.write_text(manifest.read_text().replace('"sources_sha256": "', '"sources_sha256": "0'))
    which, logged = _which("auto", stale)
    assert which == "pure"
    assert len(logged.splitlines()) == 1  # one log line says why
    assert "is stale" in logged
    assert "CYA_ENGINE=compiled, but" in _which("compiled", stale)[1]
    assert "CYA_ENGINE must be one of" in _which("fast")[1]
