"""The mutation run's settings (tools/mutants.py, docs/testing.md "Mutation testing") name
code and tests that exist, cover what issue 32 asks, and name mutants the way mutmut does.
The run itself is by hand (``make mutants PACKAGE=...``), never part of the suite."""

import ast
import json
import math
from pathlib import Path

import pytest

from tools.mutants import (
    ROOT,
    Target,
    function_globs,
    keep_verdicts,
    load_targets,
    module_of,
    mutated_files,
    mutmut_table,
    only_mutate,
    sampled,
    selection_hash,
    unwrap_atomic,
)

TARGETS = load_targets()
# Issue 32: the engine, the games services and four modules must reach 95 % killed.
REQUIRED = {
    "games/engine",
    "games/services",
    "tournaments/recording.py",
    "tournaments/selectors.py",
    "bots/services.py",
    "cya_site/outbound.py",
}


def test_the_modules_issue_32_names_are_mutated_whole_but_the_sampled_engine() -> None:
    whole = {path for target in TARGETS.values() if target.sample == 1 for path in target.mutate}
    assert whole >= REQUIRED - {"games/engine"}
    assert TARGETS["engine"].mutate == ("games/engine",)


def test_the_services_of_every_app_are_mutated() -> None:
    mutated = {path for target in TARGETS.values() for path in target.mutate}
    services = {
        str(path.relative_to(ROOT))
        for app in ("accounts", "bots", "games", "tournaments")
        for path in (ROOT / app / "services.py", ROOT / app / "services")
        if path.exists()
    }
    assert services <= mutated


@pytest.mark.parametrize("target", TARGETS.values(), ids=list(TARGETS))
def test_a_target_names_code_and_tests_that_exist(target: Target) -> None:
    assert target.mutate
    assert target.tests
    for path in target.mutate:
        assert (ROOT / path).exists(), path
        assert not path.startswith("tests"), "mutate the code, not the tests"
    for test in target.tests:
        assert (ROOT / test.split("::")[0]).exists(), test
    assert 0 < target.sample <= 1


@pytest.mark.parametrize("target", TARGETS.values(), ids=list(TARGETS))
def test_equivalent_mutants_belong_to_the_target(target: Target) -> None:
    modules = {module_of(path) for path in mutated_files(target)}
    for name in target.equivalent:
        assert "__mutmut_" in name
        assert name.rpartition(".x")[0] in modules, name


def test_a_folder_is_mutated_file_by_file_and_a_file_as_itself() -> None:
    engine = Target(name="e", mutate=("games/engine",), tests=("tests/engine",))
    outbound = Target(name="o", mutate=("cya_site/outbound.py",), tests=("tests/cya_site",))
    assert only_mutate(engine) == ["games/engine/*"]
    assert only_mutate(outbound) == ["cya_site/outbound.py"]
    table = mutmut_table(engine)
    assert table["pytest_add_cli_args_test_selection"] == ["tests/engine"]
    # every package is copied into mutants/, so the mutated one finds its neighbours there
    assert set(table["source_paths"]) == {"accounts", "bots", "cya_site", "games", "tournaments"}


def test_function_globs_name_functions_and_methods_as_mutmut_does() -> None:
    globs = function_globs(ROOT / "cya_site" / "outbound.py")
    assert "cya_site.outbound.x_url_check__mutmut_*" in globs
    assert "cya_site.outbound.x\u01c1_Transport\u01c1handle_request__mutmut_*" in globs
    assert module_of(ROOT / "games" / "services" / "__init__.py") == "games.services"


def test_a_sample_is_its_share_of_the_functions_and_the_same_every_run() -> None:
    whole = Target(name="s", mutate=("accounts/services.py",), tests=("tests/accounts",))
    third = Target(name="s", mutate=whole.mutate, tests=whole.tests, sample=0.34)
    functions = [g for path in mutated_files(whole) for g in function_globs(path)]
    assert sampled(whole) == []  # mutmut then runs them all
    chosen = sampled(third)
    assert len(chosen) == math.ceil(len(functions) * 0.34)
    assert set(chosen) <= set(functions)
    assert sampled(third) == chosen
    assert sampled(third, seed="another") != chosen


ATOMIC = '''
@transaction.atomic
def record(entry: int) -> int:
    """Record an entry."""
    # a comment stays with its line
    checked = entry + 1

    return checked


@transaction.atomic
def bare() -> None:
    pass


@transaction.atomic(savepoint=False)  # its arguments go with it
def joined() -> None:
    pass


@other.decorator
def left(entry: int) -> int:
    return entry
'''

UNWRAPPED = '''
def record(entry: int) -> int:
    """Record an entry."""
    with transaction.atomic():
        # a comment stays with its line
        checked = entry + 1

        return checked


def bare() -> None:
    with transaction.atomic():
        pass


def joined() -> None:
    with transaction.atomic(savepoint=False):
        pass


@other.decorator
def left(entry: int) -> int:
    return entry
'''


def test_an_atomic_function_is_mutated_as_the_same_body_in_an_atomic_block() -> None:
    assert unwrap_atomic(ATOMIC) == UNWRAPPED


@pytest.mark.parametrize("target", TARGETS.values(), ids=list(TARGETS))
def test_every_mutated_module_unwraps_to_valid_python_with_the_same_functions(
    target: Target,
) -> None:
    for path in mutated_files(target):
        source = path.read_text()
        unwrapped = unwrap_atomic(source)
        assert "@transaction.atomic" not in unwrapped
        assert _functions(unwrapped) == _functions(source)


def _functions(source: str) -> list[str]:
    return [n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]


def _laid_out(folder: Path, tests: list[str], stored: str) -> Path:
    """A target's folder after a run over ``tests``, its stats fingerprinted ``stored``."""
    (folder / "mutants").mkdir(parents=True)
    selection = ", ".join(json.dumps(t) for t in tests)
    (folder / "pyproject.toml").write_text(
        f"[tool.mutmut]\npytest_add_cli_args_test_selection = [{selection}]\n"
    )
    stats = folder / "mutants" / "mutmut-stats.json"
    stats.write_text(json.dumps({"config_fingerprint": {"test_selection": stored, "x": "y"}}))
    return stats


@pytest.mark.parametrize(
    ("now", "kept"),
    [
        (("tests/a.py", "tests/b.py"), True),  # grew: the verdicts stand
        (("tests/a.py",), False),  # the same: nothing to do
        (("tests/b.py",), False),  # another selection: mutmut starts over
    ],
)
def test_verdicts_are_kept_only_when_the_tests_grew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, now: tuple[str, ...], kept: bool
) -> None:
    monkeypatch.setattr("tools.mutants.WORK", tmp_path)
    stats = _laid_out(tmp_path / "t", ["tests/a.py"], selection_hash(["tests/a.py"]))

    assert keep_verdicts(Target(name="t", mutate=("x.py",), tests=now)) is kept

    stored = json.loads(stats.read_text())["config_fingerprint"]
    assert stored == {
        "test_selection": selection_hash(now if kept else ["tests/a.py"]),
        "x": "y",
    }


def test_verdicts_are_left_to_mutmut_when_its_fingerprint_is_not_the_one_expected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tools.mutants.WORK", tmp_path)
    stats = _laid_out(tmp_path / "t", ["tests/a.py"], "0123456789ab")  # another mutmut's hash

    grown = Target(name="t", mutate=("x.py",), tests=("tests/a.py", "tests/b.py"))
    assert keep_verdicts(grown) is False
    assert json.loads(stats.read_text())["config_fingerprint"]["test_selection"] == "0123456789ab"
