"""Issue 25, item 3: a notebook of untouched stubs whose last cell takes the reference from the
grader's own installation (``import solutions``, its files by path, a scan of ``sys.path``).
Graded in any install mode, it must score exactly what the same stubs score without that cell.

``probe_cell`` is the same search as a function that reports what it found, for tests that
drive a sandboxed worker directly.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat

from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention import samples as sample_cohort
from tests.support.h2 import SPEC

# The grader's distribution as its install files spell it (pyproject's name, normalised).
DISTRIBUTION = "h2-attention".replace("-", "_")

_SEARCH = '''
import importlib, importlib.util, os, pkgutil, sys

def _reference_sources(paths):
    """Every way student code could reach the grader's files."""
    found = {{}}
    for name in {imports!r}:
        try:
            importlib.import_module(name)
            found["import " + name] = name
        except Exception:
            pass
    for name in {specs!r}:
        try:
            if importlib.util.find_spec(name) is not None:
                found["find_spec " + name] = name
        except Exception:
            pass
    for module in pkgutil.iter_modules():
        if module.name in {packages!r}:
            found["pkgutil " + module.name] = module.name
    candidates = list(paths)
    for folder in sys.path:
        for relative in {relatives!r}:
            candidates.append(os.path.join(folder or ".", relative))
    for path in candidates:
        try:
            with open(path, encoding="utf-8") as handle:
                found["open " + path] = handle.read()
        except Exception:
            pass
    return found
'''


def search_cell(imports: tuple[str, ...], relatives: tuple[str, ...], specs: tuple[str, ...] = (),
                packages: tuple[str, ...] = ()) -> str:
    """A cell defining ``_reference_sources(paths)``: which of the modules ``imports`` import,
    of ``specs`` are found, of ``packages`` are listed, and which files it can read: ``paths``
    and each of ``relatives`` under every folder of ``sys.path`` (name -> module name or text)."""
    return textwrap.dedent(_SEARCH).format(imports=imports, specs=specs, packages=packages,
                                           relatives=relatives)


# H2's grader as an installation lays it out: the reference package, the checks, the engine.
_H2_SEARCH = search_cell(
    imports=("solutions", "solutions.attention", "autograder.bundles.h2_attention.checks",
             "autograder.grading"),
    specs=("solutions", "autograder.bundles.h2_attention.checks"),
    packages=("solutions", "autograder"),
    relatives=("solutions/attention.py", "autograder/bundles/h2_attention/checks/test_softmax.py"))

_RUN_REFERENCE = '''
_found = _reference_sources({paths!r})
try:
    import solutions as _reference
    globals().update({{name: getattr(_reference, name) for name in _reference.__all__}})
except Exception:
    for _key, _text in _found.items():
        if _key.startswith("open ") and _key.endswith("attention.py"):
            exec(_text)
'''


def attack_cell(paths: list[str]) -> str:
    """The last cell: find the reference and bind its functions over the stubs."""
    return _H2_SEARCH + textwrap.dedent(_RUN_REFERENCE).format(paths=list(paths))


def probe_cell() -> str:
    """A cell that defines ``_reference_sources(paths)``: what of H2's grader it could reach."""
    return _H2_SEARCH


def stubs_notebook(student: str, last_cells: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """The release notebook's stubs (``raise NotImplementedError``), the student's id and
    limitation filled in, ``last_cells`` appended."""
    notebook = sample_cohort.solved_notebook(student)
    release = nbformat.read(SPEC.release_notebook, as_version=4)
    stubs = {grade_id(c): c.source for c in release.cells if grade_id(c) in SPEC.function_parts}
    for gid, stub in stubs.items():
        sample_cohort.set_cell(notebook, gid, lambda _, stub=stub: stub)
    notebook.cells.extend(nbformat.v4.new_code_cell(source) for source in last_cells)
    return notebook


def write_stubs(folder: Path, student: str, reference_paths: list[str] | None = None) -> None:
    """A submission folder of stubs (and the reference's evidence file); with
    ``reference_paths``, its last cell tries to take the reference (those paths included)."""
    cells = () if reference_paths is None else (attack_cell(reference_paths),)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(stubs_notebook(student, cells)),
                                        encoding="utf-8")
    sample_cohort.write_evidence(folder, student)
