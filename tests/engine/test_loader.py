"""Which build the loader accepts: ``_loader.build_problem`` says why a compiled build
cannot run now, or None when it can (docs/engine.md). ``test_compiled.py`` checks the
loader against a real build; these check each reason on a folder written by hand, in
microseconds."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from games.engine import _loader

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _build(where: Path, **manifest: object) -> Path:
    """A build folder as ``make engine`` writes it: a manifest of the sources' digest and the
    compiled modules, and one (empty) extension file per module and the shared library."""
    where.mkdir()
    fields = {
        "sources_sha256": _loader.sources_digest(),
        "modules": _loader.compiled_modules(),
        **manifest,
    }
    (where / _loader.MANIFEST).write_text(json.dumps(fields))
    for name in [*_loader.compiled_modules(), _loader.SHARED_LIB]:
        (where / f"{name}{SUFFIX}").write_bytes(b"")
    return where


def test_a_fresh_build_with_every_module_has_no_problem(tmp_path: Path) -> None:
    assert _loader.build_problem(_build(tmp_path / "b")) is None


def test_a_folder_without_a_manifest_has_no_build(tmp_path: Path) -> None:
    assert _loader.build_problem(tmp_path) == (
        f"there is no compiled build in {tmp_path} (make engine)"
    )


def test_a_manifest_that_is_not_json_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / _loader.MANIFEST).write_text("{not json")
    problem = _loader.build_problem(tmp_path)
    assert problem is not None
    assert problem.startswith(f"the compiled build's manifest in {tmp_path} is unreadable (")


def test_a_manifest_that_cannot_be_read_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / _loader.MANIFEST).mkdir()  # a folder: reading it raises an OSError
    problem = _loader.build_problem(tmp_path)
    assert problem is not None
    assert problem.startswith(f"the compiled build's manifest in {tmp_path} is unreadable (")


def test_a_build_of_other_sources_is_stale(tmp_path: Path) -> None:
    where = _build(tmp_path / "b", sources_sha256="0" + _loader.sources_digest())
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} is stale: the engine's sources changed since"
    )


def test_a_manifest_that_is_not_an_object_is_stale(tmp_path: Path) -> None:
    (tmp_path / _loader.MANIFEST).write_text(json.dumps([_loader.sources_digest()]))
    assert _loader.build_problem(tmp_path) == (
        f"the compiled build in {tmp_path} is stale: the engine's sources changed since"
    )


def test_a_build_of_other_modules_is_stale(tmp_path: Path) -> None:
    where = _build(tmp_path / "b", modules=_loader.compiled_modules()[1:])
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} is stale: it compiled other modules"
    )


def test_a_build_missing_a_module_names_the_first_missing_one(tmp_path: Path) -> None:
    where = _build(tmp_path / "b")
    first, second = _loader.compiled_modules()[:2]
    (where / f"{second}{SUFFIX}").unlink()
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} has no {second}{SUFFIX} for this Python"
    )
    (where / f"{first}{SUFFIX}").unlink()
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} has no {first}{SUFFIX} for this Python"
    )


def test_a_build_missing_the_shared_library_names_it(tmp_path: Path) -> None:
    where = _build(tmp_path / "b")
    (where / f"{_loader.SHARED_LIB}{SUFFIX}").unlink()
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} has no {_loader.SHARED_LIB}{SUFFIX} for this Python"
    )


def test_an_extension_that_is_a_folder_is_missing(tmp_path: Path) -> None:
    where = _build(tmp_path / "b")
    module = _loader.compiled_modules()[0]
    (where / f"{module}{SUFFIX}").unlink()
    (where / f"{module}{SUFFIX}").mkdir()
    assert _loader.build_problem(where) == (
        f"the compiled build in {where} has no {module}{SUFFIX} for this Python"
    )
