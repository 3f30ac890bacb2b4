"""Mutation testing by target, run by hand and never in CI (docs/testing.md, "Mutation testing").

    make mutants PACKAGE=engine          # run mutmut over one target, then print its score
    .venv/bin/python tools/mutants.py retest engine    # its survivors again, after new tests
    .venv/bin/python tools/mutants.py results engine   # the score and survivors again
    .venv/bin/python tools/mutants.py show engine NAME # one mutant's diff

A target is a ``[tool.cya-mutants.<target>]`` table in pyproject.toml: the files it mutates,
the tests that should kill their mutants, the share of functions it samples, and the
survivors explained as equivalent mutants (docs/testing.md gives the reason for each).

mutmut 3 reads its settings from the pyproject.toml of the folder it runs in and keeps its
mutants, results and test timings in that folder's ``mutants/``. So each target runs in
its own folder, ``var/mutants/<target>/``: links to the packages, the tests and what the
tests read, and a pyproject.toml that is the project's with a ``[tool.mutmut]`` table for
the target. Results stay there between runs; mutmut retests what changed.

Under mutmut each mutant's tests run in a forked process. ``tests/conftest.py`` gives each
such process a test database of its own (``test_<name>_mutants<slot>``, kept between
mutants) and empties the functools caches filled before the fork. This script drops those
databases when a run starts, so a new migration is never missed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "var" / "mutants"
PACKAGES = ("accounts", "bots", "cya_site", "games", "tournaments")
# What the tests read besides the packages: the SDK (pytest's pythonpath), this folder
# (tests/conftest.py imports it), the docs and deploy files they check against the code,
# the translations, the benchmarks they import.
ALSO_COPY = ("sdk", "tools", "locale", "docs", "deploy", "benchmarks", "manage.py", "README.md")
# mutmut's separator between a class and its method in a mutant's name
CLASS_SEPARATOR = "\u01c1"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cya"


@dataclass(frozen=True)
class Target:
    """One ``[tool.cya-mutants.<name>]`` table."""

    name: str
    mutate: tuple[str, ...]  # files or folders, from the project root
    tests: tuple[str, ...]  # what pytest runs: folders, files or node ids
    sample: float = 1.0  # the share of functions whose mutants are run
    equivalent: tuple[str, ...] = ()  # survivors that no test can kill

    @property
    def folder(self) -> Path:
        return WORK / self.name


def load_targets(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Target]:
    tables = tomllib.loads(pyproject.read_text())["tool"]["cya-mutants"]
    return {
        name: Target(
            name=name,
            mutate=tuple(table["mutate"]),
            tests=tuple(table["tests"]),
            sample=float(table.get("sample", 1.0)),
            equivalent=tuple(table.get("equivalent", ())),
        )
        for name, table in tables.items()
    }


def only_mutate(target: Target) -> list[str]:
    """mutmut's ``only_mutate`` globs: a folder stands for every file under it."""
    return [path if path.endswith(".py") else f"{path.rstrip('/')}/*" for path in target.mutate]


def mutmut_table(target: Target) -> dict[str, Any]:
    """The ``[tool.mutmut]`` table of a target's folder (mutmut's documented settings)."""
    return {
        # Every package is copied, so the mutated one imports its neighbours from mutants/.
        "source_paths": list(PACKAGES),
        "only_mutate": only_mutate(target),
        "also_copy": list(ALSO_COPY),
        "pytest_add_cli_args_test_selection": list(target.tests),
        # the slot databases are kept between the mutants of a run (see tests/conftest.py)
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "--reuse-db"],
        # results are kept for unchanged code; the links are outside git's view anyway
        "use_git_change_detection": False,
    }


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def unwrap_atomic(source: str) -> str:
    """Each ``@transaction.atomic`` (or ``(...)``) function's body in a ``with`` block of the
    same call: the same behaviour, which mutmut 3 mutates (it skips decorated functions)."""
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef) or len(node.decorator_list) != 1:
            continue
        decorator = node.decorator_list[0]
        called = decorator.func if isinstance(decorator, ast.Call) else None
        if ast.unparse(called or decorator) != "transaction.atomic":
            continue
        block = ast.unparse(decorator) if called else "transaction.atomic()"
        first = node.body[0]
        docstring = (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        start = first.end_lineno if docstring and len(node.body) > 1 else first.lineno - 1
        lines_of = (decorator.lineno - 1, decorator.end_lineno or decorator.lineno)
        edits.append((lines_of, start, node.end_lineno, " " * first.col_offset, block))
    for (first_line, last_line), start, end, indent, block in sorted(edits, reverse=True):
        body = [f"    {line}" if line.strip() else line for line in lines[start:end]]
        lines[start:end] = [f"{indent}with {block}:\n", *body]
        del lines[first_line:last_line]
    return "".join(lines)


def prepare(target: Target) -> None:
    """Lay out the target's folder: its pyproject.toml, links to the tests and what they
    read, and a copy of the packages' folders whose files link to the project's, but for
    the mutated ones, written out with their ``@transaction.atomic`` unwrapped. Written
    anew each run, so mutmut reads them again; it keeps the results of every function
    whose code did not change."""
    target.folder.mkdir(parents=True, exist_ok=True)
    for name in ("tests", *ALSO_COPY):
        link = target.folder / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    mutated = set(mutated_files(target))
    for package in PACKAGES:
        folder = target.folder / package
        if folder.is_symlink():  # laid out by an earlier version of this script
            folder.unlink()
        shutil.rmtree(folder, ignore_errors=True)
        for source in (ROOT / package).rglob("*"):
            if source.is_dir() or "__pycache__" in source.parts:
                continue
            copy = target.folder / source.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            if source in mutated:
                copy.write_text(unwrap_atomic(source.read_text()))
            else:
                copy.symlink_to(source)
    table = "\n".join(f"{key} = {toml_value(value)}" for key, value in mutmut_table(target).items())
    own = (ROOT / "pyproject.toml").read_text()
    (target.folder / "pyproject.toml").write_text(
        f"{own}\n# --- written by tools/mutants.py for {target.name} ---\n[tool.mutmut]\n{table}\n"
    )


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def function_globs(path: Path) -> list[str]:
    """One mutant-name glob per function and method of a file, as mutmut names them."""
    module = module_of(path)
    globs = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            globs.append(f"{module}.x_{node.name}__mutmut_*")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    separator = CLASS_SEPARATOR
                    globs.append(
                        f"{module}.x{separator}{node.name}{separator}{item.name}__mutmut_*"
                    )
    return globs


def mutated_files(target: Target) -> list[Path]:
    files: list[Path] = []
    for entry in target.mutate:
        path = ROOT / entry
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def sampled(target: Target, seed: str = "") -> list[str]:
    """The mutant-name globs a sampled run passes to mutmut: a fixed share of the target's
    functions, the same ones every run (unless ``seed`` changes), so scores compare.
    An unsampled target passes none: mutmut then runs every mutant it has no result for."""
    if target.sample >= 1:
        return []
    globs = [glob for path in mutated_files(target) for glob in function_globs(path)]

    def rank(glob: str) -> str:
        return hashlib.sha256(f"{seed}{glob}".encode()).hexdigest()

    return sorted(sorted(globs, key=rank)[: math.ceil(len(globs) * target.sample)])


def slot_ready_marker(test_database: str) -> Path:
    """Written by tests/conftest.py once a slot's database is migrated, removed here with
    the database when a run starts."""
    return Path(tempfile.gettempdir()) / f"cya-mutants-{test_database}.ready"


def drop_slot_databases(database_url: str) -> None:
    """Drop the test databases of the forked test processes: a run starts with fresh ones
    (but for those another target's run is using: runs side by side take other slots)."""
    pattern = f"test_{urlsplit(database_url).path.lstrip('/')}_mutants%"
    with psycopg.connect(database_url, dbname="postgres", autocommit=True) as connection:
        names = connection.execute(
            "select datname from pg_database where datname like %s", [pattern]
        )
        for (name,) in names.fetchall():
            # a slot another target's run is using now stays: that run's own to keep
            with contextlib.suppress(psycopg.errors.ObjectInUse):
                connection.execute(sql.SQL("drop database {}").format(sql.Identifier(name)))
                slot_ready_marker(name).unlink(missing_ok=True)


def mutmut(target: Target, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "mutmut"), *arguments]
    return subprocess.run(command, cwd=target.folder, text=True, capture_output=True, check=False)


def statuses(target: Target) -> dict[str, str]:
    """Each mutant's status from ``mutmut results --all true``."""
    listing = mutmut(target, "results", "--all", "true")
    if listing.returncode:
        raise SystemExit(listing.stdout + listing.stderr)
    found = {}
    for line in listing.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if "__mutmut_" in name:
            found[name] = status
    return found


@dataclass(frozen=True)
class Score:
    counts: Counter[str]
    survivors: list[str]  # survived, and not explained as equivalent
    equivalent: list[str]

    @property
    def killed_share(self) -> float:
        checked = self.counts["killed"] + self.counts["timeout"] + len(self.survivors)
        return (self.counts["killed"] + self.counts["timeout"]) / checked if checked else 1.0


def score(target: Target, found: dict[str, str]) -> Score:
    """The killed share of the non-equivalent mutants that ran (a timeout counts as killed:
    the mutant made the tests hang). "no tests" and "not checked" are reported, not scored."""
    counts = Counter(found.values())
    survived = sorted(name for name, status in found.items() if status == "survived")
    return Score(
        counts=counts,
        survivors=[name for name in survived if name not in target.equivalent],
        equivalent=[name for name in survived if name in target.equivalent],
    )


def report(target: Target) -> None:
    result = score(target, statuses(target))
    print(f"{target.name}: " + ", ".join(f"{n} {s}" for s, n in sorted(result.counts.items())))
    print(f"equivalent (explained in docs/testing.md): {len(result.equivalent)}")
    print(f"killed: {result.killed_share:.1%} of the non-equivalent mutants that ran")
    for name in result.survivors:
        print(f"  survived: {name}")


def run(target: Target, max_children: int) -> int:
    keep_verdicts(target)
    prepare(target)
    drop_slot_databases(os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    command = [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children"]
    completed = subprocess.run(
        [*command, str(max_children), *sampled(target)], cwd=target.folder, check=False
    )
    report(target)
    return completed.returncode


def selection_hash(tests: Sequence[str]) -> str:
    """mutmut 3.8's fingerprint of a test selection (``Config.config_fingerprint``)."""
    return hashlib.sha256(repr(tuple(tests)).encode()).hexdigest()[:12]


def keep_verdicts(target: Target) -> bool:
    """When a target's ``tests`` only grew since its folder's run, keep that run's
    verdicts: mutmut drops them all on any change of the test selection, but a mutant
    that fewer tests killed more tests kill too. The stored fingerprint takes the new
    selection's, so only survivors and untested mutants run again (mutmut maps the new
    tests' coverage as it finds them). Only if the stored one is the old selection's."""
    stats, laid_out = (
        target.folder / "mutants" / "mutmut-stats.json",
        target.folder / "pyproject.toml",
    )
    if not stats.exists() or not laid_out.exists():
        return False
    earlier = tomllib.loads(laid_out.read_text())["tool"]["mutmut"]
    earlier_tests = earlier["pytest_add_cli_args_test_selection"]
    data = json.loads(stats.read_text())
    stored = data.get("config_fingerprint", {})
    grew = set(earlier_tests) < set(target.tests)
    if not grew or stored.get("test_selection") != selection_hash(earlier_tests):
        return False
    stored["test_selection"] = selection_hash(target.tests)
    stats.write_text(json.dumps(data))
    print(f"{target.name}: tests were added since its last run; its verdicts are kept")
    return True


def retest(target: Target, max_children: int) -> int:
    """Run the survivors (and the mutants no test reached) again, against the tests as
    they are now: mutmut keeps a verdict until the mutated function changes, so a new
    test kills nothing until this runs."""
    keep_verdicts(target)
    found = statuses(target)
    untested = [name for name, status in found.items() if status == "no tests"]
    survivors = score(target, found).survivors + untested
    if not survivors:
        report(target)
        return 0
    prepare(target)
    command = [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children"]
    completed = subprocess.run(
        [*command, str(max_children), *survivors], cwd=target.folder, check=False
    )
    report(target)
    return completed.returncode


def main(argv: Sequence[str] | None = None) -> int:
    targets = load_targets()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run mutmut over a target, then its score")
    run_parser.add_argument("target", choices=sorted(targets))
    run_parser.add_argument("--max-children", type=int, default=2)
    run_parser.add_argument(
        "--sample", type=float, help="a share of the functions, for this run only"
    )
    retest_parser = commands.add_parser("retest", help="run a target's survivors again")
    retest_parser.add_argument("target", choices=sorted(targets))
    retest_parser.add_argument("--max-children", type=int, default=2)
    results_parser = commands.add_parser("results", help="a target's score and survivors")
    results_parser.add_argument("target", choices=sorted(targets))
    show_parser = commands.add_parser("show", help="one mutant's diff")
    show_parser.add_argument("target", choices=sorted(targets))
    show_parser.add_argument("mutant")
    commands.add_parser("list", help="the targets")
    arguments = parser.parse_args(argv)
    if arguments.command == "list":
        for target in targets.values():
            print(f"{target.name}: {' '.join(target.mutate)} (sample {target.sample:.0%})")
        return 0
    target = targets[arguments.target]
    if arguments.command == "run":
        if arguments.sample is not None:
            target = dataclasses.replace(target, sample=arguments.sample)
        return run(target, arguments.max_children)
    if arguments.command == "retest":
        return retest(target, arguments.max_children)
    if arguments.command == "results":
        report(target)
        return 0
    shown = mutmut(target, "show", arguments.mutant)
    print(shown.stdout + shown.stderr, end="")
    return shown.returncode


if __name__ == "__main__":
    sys.exit(main())
