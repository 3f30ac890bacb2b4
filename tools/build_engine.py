"""Compile the engine with mypyc: ``make engine`` (docs/engine.md).

Compiles every module of ``games/engine`` but those ``games.engine._loader.NOT_COMPILED``
names into one mypyc library plus a stub per module, and writes them, flat, into the build
folder (``games/engine/_compiled/`` unless ``--out``) with ``manifest.json``: the hash of
the sources compiled, which the loader checks at import. The search player's hot modules
(``bots.strategies._loader.COMPILED``: its playouts and their policy) ride in the same
library, their stubs in ``strategies/`` with a hash of their own, so that their calls into
the engine are native. An up-to-date build is left as it is (``--force`` rebuilds).

Exit status: 0 built or already fresh; 3 no C compiler or no mypyc here (nothing built,
the pure engine runs); 1 the build failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _load_loader(name: str, path: Path) -> ModuleType:
    """A loader module by its path: importing its package would load a build."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_loader = _load_loader("cya_engine_loader", ROOT / "games" / "engine" / "_loader.py")
_strategies = _load_loader("cya_strategies_loader", ROOT / "bots" / "strategies" / "_loader.py")

NO_TOOLCHAIN = 3
# mypy's options for the compile: the project's own (pyproject.toml) load the Django
# plugins, which the engine does not need; strict, like `make lint`
MYPY_CONFIG = "[mypy]\npython_version = 3.11\nstrict = True\n"


def toolchain_problem() -> str | None:
    """Why nothing can be compiled here, or None."""
    for name in ("mypyc", "setuptools"):
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed"
    # setuptools compiles with $CC when set, else with the compiler Python was built with
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) on PATH"
    return None


def build(out: Path, *, quiet: bool) -> None:
    """Compile into ``out`` (replaced whole when the build succeeds)."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    modules = _loader.compiled_modules()
    digest = _loader.sources_digest()
    riders = _strategies.COMPILED
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cya-engine-") as tmp_name:
        tmp = Path(tmp_name)
        config = tmp / "mypy.ini"
        config.write_text(MYPY_CONFIG)
        cwd = Path.cwd()
        os.chdir(ROOT)  # mypyc names modules by their paths: games/engine/x.py -> games.engine.x
        try:
            extensions = mypycify(
                [
                    "--config-file",
                    str(config),
                    *(f"games/engine/{m}.py" for m in modules),
                    *(f"bots/strategies/{m}.py" for m in riders),
                ],
                opt_level="3",
                target_dir=str(tmp / "c"),
                group_name="games.engine._mypyc",  # the shared library lives in the package
            )
            dist = Distribution({"name": "cya-engine", "ext_modules": extensions})
            cmd = dist.get_command_obj("build_ext")
            cmd.build_lib = str(tmp / "lib")
            cmd.build_temp = str(tmp / "obj")
            dist.verbose = 0 if quiet else 1
            dist.run_command("build_ext")
        finally:
            os.chdir(cwd)
        built = tmp / "lib" / "games" / "engine"
        staged = tmp / "staged"
        staged.mkdir()
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        for name in [*modules, _loader.SHARED_LIB]:
            shutil.copy2(built / f"{name}{suffix}", staged / f"{name}{suffix}")
        (staged / _strategies.FOLDER).mkdir()
        for name in riders:
            stub = f"{name}{suffix}"
            shutil.copy2(
                tmp / "lib" / "bots" / "strategies" / stub, staged / _strategies.FOLDER / stub
            )
        manifest = {
            "sources_sha256": digest,
            "modules": modules,
            "strategies": list(riders),
            "strategies_sha256": _strategies.sources_digest(),
            "python": sys.version.split()[0],
            "ext_suffix": suffix,
            "mypy": _mypy_version(),
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        (staged / _loader.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        if out.exists():
            shutil.rmtree(out)
        shutil.move(str(staged), str(out))


def _mypy_version() -> str:
    from mypy.version import __version__

    return __version__


def _problem(out: Path) -> str | None:
    """Why the build in ``out`` is not fresh, the strategies riding in it included."""
    problem: str | None = _loader.build_problem(out) or _strategies.build_problem(out)
    return problem


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=_loader.DEFAULT_BUILD, help="build folder")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--quiet", action="store_true", help="print only the outcome")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    if not args.force and _problem(out) is None:
        print(f"compiled engine in {out} is up to date")
        return 0
    problem = toolchain_problem()
    if problem is not None:
        print(f"compiled engine not built: {problem}; the pure engine runs")
        return NO_TOOLCHAIN
    started = time.monotonic()
    build(out, quiet=args.quiet)
    problem = _problem(out)
    if problem is not None:  # e.g. a source edited while it compiled
        print(f"compiled engine built but unusable: {problem}", file=sys.stderr)
        return 1
    print(f"compiled engine built in {out} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
