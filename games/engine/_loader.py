"""Which engine runs: the compiled build (``make engine``) when it is fresh, else the source.

The pure modules are the source of truth. ``make engine`` (``tools/build_engine.py``)
compiles them with mypyc into ``games/engine/_compiled/`` and writes there a manifest with
a hash of the sources it compiled. ``games.engine`` puts that folder first on its module
path only when the manifest's hash matches the sources as they are now and every compiled
module is there for this interpreter; otherwise it runs the pure modules (a stale build
says so in one log line; a missing one is silent). See docs/engine.md.

``CYA_ENGINE`` chooses: ``auto`` (the default) as above, ``pure`` always the source,
``compiled`` the build or an ImportError saying why not. ``CYA_ENGINE_BUILD`` names
another build folder (the identity test builds one in a temporary folder).

Stdlib only, and never compiled: this decides what is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sysconfig
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
DEFAULT_BUILD = PACKAGE / "_compiled"
MANIFEST = "manifest.json"
MODES = ("auto", "pure", "compiled")
# modules never compiled: the package's door and this loader (they choose the build),
# the exceptions and the read-only Event dict (mypyc's native classes cannot subclass
# dict, and exceptions' class-level codes are read by the web layer), and the modules
# whose dataclasses take callers' values (RuleSet, Advanced, recorded rounds): compiled,
# a wrongly typed value would raise TypeError before their validation names the field;
# fork, whose seed check refuses a bool; and simulate, which runs as a command (`python -m`
# needs its code object). None is on the hot path.
NOT_COMPILED = (
    "__init__",
    "_loader",
    "errors",
    "events",
    "rules",
    "advanced",
    "recorded",
    "fork",
    "simulate",
)
SHARED_LIB = "_mypyc__mypyc"  # the one library every compiled module's stub loads

log = logging.getLogger("games.engine")


def source_files(package: Path = PACKAGE) -> list[Path]:
    """The engine's modules whose text a build depends on: all but ``__init__`` and this."""
    return sorted(p for p in package.glob("*.py") if p.stem not in ("__init__", "_loader"))


def compiled_modules(package: Path = PACKAGE) -> list[str]:
    """The modules ``make engine`` compiles (short names, e.g. ``state``)."""
    return [p.stem for p in source_files(package) if p.stem not in NOT_COMPILED]


def sources_digest(package: Path = PACKAGE) -> str:
    """SHA-256 over the names and bytes of ``source_files``: the build's identity."""
    h = hashlib.sha256()
    for path in source_files(package):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def build_problem(where: Path) -> str | None:
    """Why the build in ``where`` cannot be used now, or None if it can."""
    try:
        manifest = json.loads((where / MANIFEST).read_text())
    except FileNotFoundError:
        return f"there is no compiled build in {where} (make engine)"
    except (OSError, ValueError) as exc:
        return f"the compiled build's manifest in {where} is unreadable ({exc})"
    if not isinstance(manifest, dict) or manifest.get("sources_sha256") != sources_digest():
        return f"the compiled build in {where} is stale: the engine's sources changed since"
    if manifest.get("modules") != compiled_modules():
        return f"the compiled build in {where} is stale: it compiled other modules"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    names = [*manifest.get("modules", []), SHARED_LIB]
    missing = [n for n in names if not (where / f"{n}{suffix}").is_file()]
    if missing:
        return f"the compiled build in {where} has no {missing[0]}{suffix} for this Python"
    return None


def compiled_path() -> str | None:
    """The folder of the compiled modules to load first, or None for the pure engine."""
    mode = os.environ.get("CYA_ENGINE", "") or "auto"
    if mode not in MODES:
        raise ImportError(f"CYA_ENGINE must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "pure":
        return None
    where = Path(os.environ.get("CYA_ENGINE_BUILD", "") or DEFAULT_BUILD)
    problem = build_problem(where)
    if problem is None:
        return str(where)
    if mode == "compiled":
        raise ImportError(f"CYA_ENGINE=compiled, but {problem}")
    if (where / MANIFEST).exists():  # a build that no longer fits: worth one line
        log.warning("%s; running the pure engine", problem)
    return None
