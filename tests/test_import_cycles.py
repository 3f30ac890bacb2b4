"""No import cycle inside an app (issue 25 item 6), counting what import-linter does not:
imports inside functions, and the package ``__init__`` an import runs on its way.

Each module's imports are read from its source (``ast``), wherever they sit: at the top,
in a function, in a ``try``; only ``if TYPE_CHECKING:`` blocks, which never run, are left
out. ``import a.b.c`` and ``from a.b import c`` run ``a/b/__init__.py`` first, so both count
as importing the package ``a.b`` too, unless ``a.b`` is the importing module's own
package (Python has run it already, to reach the module). A cycle is a set of modules of
one app that reach each other by such imports (a strongly connected component).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ROOT

APPS = ("accounts", "bots", "cya_site", "games", "tournaments")


def _modules() -> dict[str, Path]:
    """Every module of the apps (migrations left out), by dotted name."""
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, however deep."""
    if isinstance(tree, ast.If) and _is_type_checking(tree.test):
        for node in tree.orelse:
            yield from _imports(node)
        return
    if isinstance(tree, ast.Import | ast.ImportFrom):
        yield tree
    for child in ast.iter_child_nodes(tree):
        yield from _imports(child)


def _package(name: str, path: Path) -> str:
    """The package a module's relative imports start from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _targets(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules (of any app) that importing ``name`` runs, its own packages left out."""
    own = _package(name, path)
    wanted: set[str] = set()
    for node in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            wanted.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = own.rsplit(".", node.level - 1)[0] if node.level > 1 else own
            base = f"{anchor}.{base}" if base else anchor
        wanted.add(base)
        wanted.update(f"{base}.{alias.name}" for alias in node.names)
    reached: set[str] = set()
    for target in wanted:
        parts = target.split(".")
        for end in range(1, len(parts) + 1):  # the packages on the way run too
            step = ".".join(parts[:end])
            if step in modules and step != name and not _within(own, step):
                reached.add(step)
    return reached


def _within(package: str, step: str) -> bool:
    """Whether ``step`` is ``package`` or one of the packages it sits in."""
    return package == step or package.startswith(f"{step}.")


def _graph() -> dict[str, set[str]]:
    """Each module's imports of modules of its own app."""
    modules = _modules()
    return {
        name: {t for t in _targets(name, path, modules) if t.split(".")[0] == name.split(".")[0]}
        for name, path in modules.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_app_imports_itself_in_a_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_finder_sees_imports_in_functions_and_through_packages() -> None:
    graph = {"a.x": {"a.pkg"}, "a.pkg": {"a.pkg.y"}, "a.pkg.y": {"a.x"}}

    assert _cycles(graph) == [["a.pkg", "a.pkg.y", "a.x"]]
    assert _cycles({"a.x": {"a.y"}, "a.y": set()}) == []


def test_an_import_in_a_function_counts_and_one_for_type_checking_does_not() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import games.store\n"
        "def f():\n    from games import selectors\n"
    )
    names = {alias.name for node in _imports(ast.parse(source)) for alias in node.names} | {
        node.module for node in _imports(ast.parse(source)) if isinstance(node, ast.ImportFrom)
    }

    assert "games.store" not in names
    assert {"games", "selectors"} <= names
