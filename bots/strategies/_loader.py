"""Whether the search player's hot modules run compiled: they ride in the engine's build.

``make engine`` (``tools/build_engine.py``) compiles ``COMPILED`` into the engine's mypyc
library, so that a playout's calls into the engine are native, and writes their stubs to
``strategies/`` in the engine's build folder, with a hash of their sources in the build's
manifest. ``bots.strategies`` puts that folder first on its module path only when the
engine itself runs compiled (the stubs load the engine's library) and the hash matches
the sources as they are now; otherwise the pure modules run, which stay the source (a
stale build says so in one log line). docs/engine.md, "Compiled build".

Stdlib only, and never compiled: this decides what is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sysconfig
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
COMPILED = ("builtin", "search")  # a playout's policy and the playout loop
FOLDER = "strategies"  # their stubs' folder inside the engine's build
MANIFEST = "manifest.json"  # the engine build's (games/engine/_loader.py)

log = logging.getLogger("bots.strategies")


def sources_digest(package: Path = PACKAGE) -> str:
    """SHA-256 over the names and bytes of the ``COMPILED`` modules' sources."""
    h = hashlib.sha256()
    for name in COMPILED:
        path = package / f"{name}.py"
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def build_problem(engine_build: Path) -> str | None:
    """Why the strategies in the engine build ``engine_build`` cannot run now, or None."""
    try:
        manifest = json.loads((engine_build / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        return f"the engine build's manifest in {engine_build} is unreadable ({exc})"
    if not isinstance(manifest, dict) or manifest.get("strategies") != list(COMPILED):
        return f"the engine build in {engine_build} compiled no strategies, or others"
    if manifest.get("strategies_sha256") != sources_digest():
        return f"the compiled strategies in {engine_build} are stale: their sources changed"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    missing = [n for n in COMPILED if not (engine_build / FOLDER / f"{n}{suffix}").is_file()]
    if missing:
        return f"the engine build in {engine_build} has no {FOLDER}/{missing[0]}{suffix}"
    return None


def compiled_path(engine_build: str | None) -> str | None:
    """The folder of the compiled strategies to load first, or None for the pure ones.

    ``engine_build`` is the engine's build folder when the engine runs compiled, else None.
    """
    if engine_build is None:
        return None
    problem = build_problem(Path(engine_build))
    if problem is None:
        return str(Path(engine_build) / FOLDER)
    log.warning("%s; running the pure strategies", problem)
    return None
