"""No import cycles in ``autograder/``: each module can be read, changed and imported on its
own terms, one layer above the ones it uses.

Every import statement of every module counts, at module level or inside a function
(a deferred import is still a dependency, only a later one), relative ones resolved;
``import autograder.x.y`` and ``from autograder.x import y`` (y a module) depend on the
module ``autograder.x.y``, ``from autograder.x import name`` on the package's
``__init__``. Only imports that never run are left out: those under
``if TYPE_CHECKING:`` (annotations only). A cycle is named module by module, with the
line of each import that closes it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from autograder.spec import REPO

PACKAGE = "autograder"
ROOT = REPO / PACKAGE


def module_name(path: Path, base: Path = REPO) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path = ROOT) -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its ``__init__``)."""
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))
            if "__pycache__" not in path.parts}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def dependencies(known: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {module of the package it imports: the line of the first such import}."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges: dict[str, int] = {}
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(name, path, node)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                           for alias in node.names]
            for target in targets:
                if target in known:  # the package's own modules (itself too: a cycle)
                    edges.setdefault(target, node.lineno)
        graph[name] = edges
    return graph


def tangles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or not (the strongly
    connected components of more than one module, or a module importing itself; Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # recursion as deep as the longest import chain
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle through each tangle, the first module repeated at the end."""
    return [one_cycle(group, graph) for group in tangles(graph)]


def one_cycle(group: list[str], graph: dict[str, dict[str, int]]) -> list[str]:
    """The shortest cycle from the group's first module back to itself, inside the group."""
    start = group[0]
    members = set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target == start:
                    return [*paths[node], start]
                if target in members and target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {group}")


def describe(group: list[str], graph: dict[str, dict[str, int]], known: dict[str, Path]) -> str:
    """The group's modules, one cycle through them, and every import inside the group."""
    members = set(group)
    cycle = one_cycle(group, graph)
    edges = [f"      {a} -> {b}  ({known[a].relative_to(REPO).as_posix()}:{line})"
             for a in group for b, line in sorted(graph[a].items()) if b in members]
    return "\n".join([f"- {' -> '.join(cycle)}", f"    {len(group)} modules: {', '.join(group)}",
                      "    imports among them:", *edges])


def test_the_walk_sees_every_import_that_can_run(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__", "a", "b", "c", "d", "sub/__init__", "sub/e"):
        (package / f"{name}.py").write_text("")
    (package / "sub" / "e.py").write_text(
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "import pkg.a\nimport numpy\nfrom .. import b\nfrom ..c import something\n"
        "from . import value\n"
        "if TYPE_CHECKING:\n    from pkg import d\n"
        "def later():\n    from pkg.sub import e\n")
    graph = dependencies(modules(package))
    assert graph["pkg.sub.e"] == {"pkg.a": 3, "pkg.b": 5, "pkg.c": 6, "pkg.sub": 7,
                                  "pkg.sub.e": 11}


def test_cycles_are_found_and_named():
    graph = {"a": {"b": 1}, "b": {"c": 2, "a": 9}, "c": {"a": 3, "d": 4}, "d": {},
             "e": {"e": 5}}
    assert tangles(graph) == [["a", "b", "c"], ["e"]]
    assert cycles(graph) == [["a", "b", "a"], ["e", "e"]]


def test_no_import_cycles_in_the_package():
    known = modules()
    assert len(known) > 50 and "autograder.cli" in known
    graph = dependencies(known)
    found = tangles(graph)
    assert not found, (f"{len(found)} group(s) of modules in {PACKAGE}/ import each other:\n"
                       + "\n".join(describe(group, graph, known) for group in found))
