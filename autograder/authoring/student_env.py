"""The student's environment: a pinned ``requirements.txt`` shipped beside the notebook.

A student installs what the notebook needs from the release folder alone, never from
this repository: it holds the solutions and the hidden checks, and ``pip install -e .``
would also bring nbgrader's instructor extensions (the "Create Assignment" sidebar,
Formgrader) into the student's JupyterLab. The file lives in the assignment's source
folder (beside the source notebook), so ``nbgrader generate_assignment`` copies it into
the release and ``cohort release`` into the exchange, like the evidence schema.

What it pins, and from where (``pyproject.toml`` stays the single source of truth):

* the third-party libraries the assignment's source notebook imports (found in its code
  cells, each mapped to the distribution installed here that provides it), and ipykernel
  (the kernel Jupyter runs it in), each at pyproject's version: its ``==`` pin if it has
  one, otherwise the version already in the file if it still satisfies pyproject's range,
  otherwise the version installed here (the one the course's tests ran with);
* JupyterLab, the front end that opens the notebook (the grader never needs it, so
  pyproject does not list it): the version installed here.

The libraries keep the order the file already lists them in (a new one comes after, in
the notebook's order), so regenerating moves nothing that pyproject did not move.
``python -m autograder sync-solutions`` writes the file when it drifts from pyproject,
``--check`` (and the test suite) only reports. To re-pin to the versions installed
here, delete the file and run sync-solutions.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from autograder.spec import REPO

if TYPE_CHECKING:
    from autograder.assignments.bundle import Assignment

REQUIREMENTS_NAME = "requirements.txt"
PYPROJECT = REPO / "pyproject.toml"

KERNEL: dict[str, str] = {"ipykernel": "the Python kernel Jupyter runs the notebook in"}
# Not in pyproject.toml (the grader needs no front end): the version installed here.
FRONT_END: dict[str, str] = {"jupyterlab": "the front end that opens the notebook"}
JUPYTER: tuple[str, ...] = (*KERNEL, *FRONT_END)
# What the header tells a student about a package's pin, when the file pins it.
LIBRARY_NOTES: dict[str, tuple[str, ...]] = {
    "torch": ("torch: on Linux, plain PyPI gives the large CUDA build; PyTorch's CPU wheel index",
              "has the small CPU build of the same version, which is all this notebook needs."),
    "ipykernel": ("ipykernel 6, not 7: run without a browser (jupyter nbconvert --execute), a",
                  "widget cell could stall for good with 7; JupyterLab runs the notebook with either."),
}

# Never in a student's environment. Name -> why.
INSTRUCTOR_ONLY: dict[str, str] = {
    "nbgrader": "nbgrader's instructor extensions (Create Assignment, Formgrader)",
}
PIN_LINE = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[0-9][0-9A-Za-z.!+-]*)")


class StudentEnvError(RuntimeError):
    """The pins cannot be made: the installed version of a package is outside pyproject's
    range, or no installed package provides a module the notebook imports."""


def requirements_path(assignment: Assignment) -> Path:
    """The file in the assignment's source folder (released beside the notebook)."""
    return assignment.source_dir / REQUIREMENTS_NAME


def imported_modules(notebook: Path) -> list[str]:
    """The top-level modules the notebook's code cells import that are not Python's own,
    in the notebook's order."""
    # nbformat (70 ms): not at a command's start
    import nbformat

    found: dict[str, None] = {}
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        # IPython's magics and shell escapes are not Python: blanked, the rest is read.
        python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                            for line in cell.source.splitlines())
        try:
            tree = ast.parse(python)
        except SyntaxError:  # not Python at all: nothing we could pin
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(alias.name.split(".")[0] for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module.split(".")[0]] = None
    return [name for name in found
            if name not in sys.stdlib_module_names and name != "__future__"]


@cache
def _distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def imported_distributions(notebook: Path) -> list[str]:
    """The distributions (canonical names) that provide the notebook's third-party imports."""
    names: dict[str, None] = {}
    for module in imported_modules(notebook):
        providers = _distributions().get(module)
        if not providers:
            raise StudentEnvError(f"{notebook.name} imports {module}, which no package installed "
                                  "here provides: run `make setup` first")
        names[canonicalize_name(providers[0])] = None
    return list(names)


def libraries(assignment: Assignment, current: Iterable[str] = ()) -> list[str]:
    """What the student installs for the notebook's imports: in the order ``current`` (the
    file's pins) lists them, any new one after them in the notebook's order."""
    imported = imported_distributions(assignment.source_notebook)
    kept = [name for name in current if name in imported]
    return kept + [name for name in imported if name not in kept]


def pyproject_requirements(pyproject: Path = PYPROJECT) -> dict[str, Requirement]:
    """pyproject.toml's runtime dependencies by canonical name (what the grader pins)."""
    found = (Requirement(text) for text in _project(pyproject)["dependencies"])
    return {canonicalize_name(req.name): req for req in found}


def _project(pyproject: Path = PYPROJECT) -> dict:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]


def requires_python(pyproject: Path = PYPROJECT) -> str:
    """pyproject's Python range, e.g. ``>=3.11`` (the header tells the student)."""
    return _project(pyproject)["requires-python"]


def exact_pin(requirement: Requirement) -> str | None:
    """The version of a ``name==X`` requirement; None for a range."""
    specs = list(requirement.specifier)
    if len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version:
        return specs[0].version
    return None


def installed_version(name: str) -> str:
    """The public version installed in this interpreter (``2.13.0+cpu`` -> ``2.13.0``:
    the local label names a wheel index, not a release)."""
    return Version(importlib.metadata.version(name)).public


def parse(text: str) -> tuple[dict[str, str], list[str]]:
    """(name -> pinned version, problems): every line that is not a comment must be
    ``name==version``, so nothing can point at a path, a URL, an index or an editable."""
    pins: dict[str, str] = {}
    problems = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        match = PIN_LINE.fullmatch(line)
        if not match:
            problems.append(f"line {number} is not a `name==version` pin: {line!r}")
            continue
        name = canonicalize_name(match["name"])
        if name in pins:
            problems.append(f"line {number} pins {name} a second time")
        pins[name] = match["version"]
    return pins, problems


def leaks(text: str) -> list[str]:
    """What in a requirements file would give a student more than the notebook's
    environment: nbgrader, this repository (its package, its path, ``-e .``), anything
    that is not a plain pin. The release's leak checker runs this on the shipped file."""
    pins, problems = parse(text)
    banned = {**INSTRUCTOR_ONLY, canonicalize_name(_project()["name"]):
              "this repository's own package (the solutions and the hidden checks)"}
    problems += [f"installs {name}: {why}" for name, why in banned.items() if name in pins]
    if re.search(r"nbgrader", text, re.I) and "nbgrader" not in pins:
        problems.append("names nbgrader (a student never installs it)")
    if str(REPO) in text:
        problems.append(f"names this repository's path {REPO}")
    return problems


def pins_for(assignment: Assignment, current: dict[str, str] | None = None,
             pyproject: Path = PYPROJECT) -> dict[str, str]:
    """The pins the file must carry, in file order; ``current`` (the file's pins) are kept
    where pyproject still allows them, so a pin moves only when pyproject says so."""
    current = current or {}
    wanted = pyproject_requirements(pyproject)
    pins = {}
    for name in (*libraries(assignment, current), *JUPYTER):
        requirement = wanted.get(name)
        if requirement is None:
            if name not in FRONT_END:
                raise StudentEnvError(f"{name} is shipped to students but pyproject.toml does "
                                      "not list it: add it there, with its version")
            pins[name] = current.get(name) or installed_version(name)
            continue
        exact = exact_pin(requirement)
        if exact is not None:
            pins[name] = exact
        elif name in current and _allows(requirement, current[name]):
            pins[name] = current[name]
        else:
            version = installed_version(name)
            if not _allows(requirement, version):
                raise StudentEnvError(f"installed {name} {version} is outside pyproject.toml's "
                                      f"{requirement}: run `make setup` first")
            pins[name] = version
    return pins


def _allows(requirement: Requirement, version: str) -> bool:
    try:
        return requirement.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def render(assignment: Assignment, pins: dict[str, str], pyproject: Path = PYPROJECT) -> str:
    """The file's text: a header a student can act on, the libraries, then Jupyter."""
    python = requires_python(pyproject)
    minimum = re.fullmatch(r">=\s*([0-9.]+)", python)
    python = f"{minimum[1]} or newer" if minimum else python
    library_pins = [name for name in pins if name not in JUPYTER]
    lines = [
        f"# What the {assignment.name} notebook needs (Python {python}). In a fresh virtual",
        "# environment: pip install -r requirements.txt",
    ]
    lines += [f"# {note}" for name in library_pins for note in LIBRARY_NOTES.get(name, ())]
    lines += [f"{name}=={pins[name]}" for name in library_pins]
    lines.append("# Jupyter: the kernel that runs the notebook, and the front end that opens it")
    lines += [f"# {note}" for name in JUPYTER if name in pins for note in LIBRARY_NOTES.get(name, ())]
    lines += [f"{name}=={pins[name]}" for name in JUPYTER if name in pins]
    return "\n".join(lines) + "\n"


def expected_text(assignment: Assignment, path: Path | None = None,
                  pyproject: Path = PYPROJECT) -> str:
    """What ``path`` (the assignment's file by default) must hold, keeping its pins that
    pyproject still allows."""
    path = path or requirements_path(assignment)
    current = parse(path.read_text(encoding="utf-8"))[0] if path.is_file() else {}
    return render(assignment, pins_for(assignment, current, pyproject), pyproject)


def drift(assignment: Assignment, path: Path | None = None,
          pyproject: Path = PYPROJECT) -> list[str]:
    """Why ``path`` is not what pyproject.toml makes of it (empty = in sync). Installed
    versions are not compared: CI may install newer ones within pyproject's ranges."""
    path = path or requirements_path(assignment)
    fix = f"(run: python -m autograder sync-solutions {assignment.name})"
    if not path.is_file():
        return [f"no {path.name} next to the notebook {fix}"]
    text = path.read_text(encoding="utf-8")
    pins, problems = parse(text)[0], leaks(text)
    try:
        shipped = (*libraries(assignment, pins), *JUPYTER)
    except StudentEnvError as error:
        return [f"{error} {fix}"]
    wanted = pyproject_requirements(pyproject)
    problems += [f"{path.name} lacks {name}" for name in shipped if name not in pins]
    problems += [f"{path.name} pins {name}, which the notebook does not need"
                 for name in pins if name not in shipped]
    problems += [f"{path.name} pins {name}=={pins[name]}, pyproject.toml says {wanted[name]}"
                 for name in shipped
                 if name in pins and name in wanted and not _allows(wanted[name], pins[name])]
    if not problems and text != render(assignment, pins, pyproject):
        problems.append(f"{path.name} is not in the generated form")
    return [f"{line} {fix}" for line in problems]


def write(assignment: Assignment, path: Path | None = None, pyproject: Path = PYPROJECT) -> bool:
    """Rewrite ``path`` (the assignment's file by default) if it drifted; returns whether
    it changed."""
    path = path or requirements_path(assignment)
    if not drift(assignment, path, pyproject):
        return False
    path.write_text(expected_text(assignment, path, pyproject), encoding="utf-8")
    return True
