"""Every import inside a function of the engine says why it is not at the module's top.

Imports belong at the top of their module (issue 39) unless a measured start-up cost or a
constraint says otherwise: a command's ``--help`` and argument errors start fast
(``tests/base/test_startup.py``), ``autograde`` launches its zygote before the grader's heavy
imports (``tests/batch/test_early_sandbox.py``), a name clash, an order the code needs
(after ``prepare_process``, after ``light_import``). The reason is written beside the import,
so the next reader can weigh it again: an import in a function of ``autograder/`` (bundles
aside) needs a comment

* on one of its own lines, or
* on the line above it; a comment above a run of imports (blank lines between them allowed)
  covers the whole run, or
* in the module's docstring, for imports of the modules it names, on a line of the form
  ``Deferred imports (nbgrader, sqlalchemy): why``: a listed name covers the module itself
  and its submodules.

The rule is in docs/development.md ("Tests and conventions").
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from autograder.spec import REPO

ENGINE = REPO / "autograder"
MARKER = re.compile(r"^\s*Deferred imports \(([^)]*)\):", re.MULTILINE)


def _comment_lines(source: str) -> set[int]:
    """The lines that hold a comment (a ``#`` inside a string is not one)."""
    return {token.start[0] for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT}


def _declared(tree: ast.Module) -> tuple[str, ...]:
    """The modules the docstring's ``Deferred imports (...):`` lines name."""
    docstring = ast.get_docstring(tree) or ""
    return tuple(name.strip() for names in MARKER.findall(docstring)
                 for name in names.split(",") if name.strip())


def _modules(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return ["." * node.level + (node.module or "")]


def _covered(module: str, declared: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in declared)


def unexplained(source: str, name: str = "<source>") -> list[tuple[int, str]]:
    """(line, statement) of each import inside a function with no reason given for it."""
    tree = ast.parse(source, name)
    lines = source.splitlines()
    comments = _comment_lines(source)
    declared = _declared(tree)
    deferred = sorted({node.lineno: node for function in ast.walk(tree)
                       if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                       for node in ast.walk(function)
                       if isinstance(node, ast.Import | ast.ImportFrom)}.values(),
                      key=lambda node: node.lineno)
    import_lines = {line for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                    for line in range(node.lineno, node.end_lineno + 1)}
    found = []
    for node in deferred:
        if comments & set(range(node.lineno, node.end_lineno + 1)):
            continue  # on its own line(s)
        above = node.lineno - 1
        while above >= 1 and (above in import_lines or not lines[above - 1].strip()):
            above -= 1  # up through the run of imports it belongs to
        if above >= 1 and lines[above - 1].lstrip().startswith("#"):
            continue
        if all(_covered(module, declared) for module in _modules(node)):
            continue
        found.append((node.lineno, lines[node.lineno - 1].strip()))
    return found


def engine_files() -> list[Path]:
    return [path for path in sorted(ENGINE.rglob("*.py"))
            if "bundles" not in path.relative_to(ENGINE).parts]


def test_every_deferred_import_of_the_engine_says_why():
    missing = [f"{path.relative_to(REPO)}:{line}: {statement}"
               for path in engine_files()
               for line, statement in unexplained(path.read_text(encoding="utf-8"), str(path))]
    assert not missing, (
        "imports inside functions with no reason given (move them to the module's top, or "
        "say why not in a comment on the line or the line above: the measured cost or the "
        "constraint; see docs/development.md):\n" + "\n".join(missing))


def test_the_rule_reads_comments_runs_and_the_docstring():
    source = '''"""A module.

Deferred imports (heavy, big.part): they are slow.
"""
import json


def f():
    import os  # no need at the top
    import io
    # why these
    import re

    import sys
    x = 1
    from heavy import thing
    from big.part.inner import x
    from big import y
    import lonely
    text = "# not a comment"; import hashlib


def g():
    x = 1

    import csv
'''
    assert unexplained(source) == [(10, "import io"), (18, "from big import y"),
                                   (19, "import lonely"),
                                   (20, 'text = "# not a comment"; import hashlib'),
                                   (26, "import csv")]


def test_the_engine_is_walked():
    files = {path.relative_to(ENGINE).as_posix() for path in engine_files()}
    assert "cli.py" in files and "views/gradebook.py" in files
    assert not any(name.startswith("bundles/") for name in files)
