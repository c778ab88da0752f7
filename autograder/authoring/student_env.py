"""The student's environment: a pinned ``requirements.txt`` shipped beside the notebook.

A student installs what the notebook needs from the release folder alone, never from
this repository: it holds the solutions and the hidden checks, and ``pip install -e .``
would also bring nbgrader's instructor extensions (the "Create Assignment" sidebar,
Formgrader) into the student's JupyterLab. The file lives in ``source/<assignment>/``,
so ``nbgrader generate_assignment`` copies it into the release and ``cohort release``
into the exchange, like the evidence schema.

What it pins, and from where (``pyproject.toml`` stays the single source of truth):

* the libraries the notebook imports, and ipykernel (the kernel Jupyter runs it in),
  each at pyproject's version: its ``==`` pin if it has one, otherwise the version
  already in the file if it still satisfies pyproject's range, otherwise the version
  installed here (the one the course's tests ran with);
* JupyterLab, the front end that opens the notebook (the grader never needs it, so
  pyproject does not list it): the version installed here.

``python -m autograder sync-solutions`` writes the file when it drifts from pyproject,
``--check`` (and the test suite) only reports. To re-pin to the versions installed
here, delete the file and run sync-solutions.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from autograder.spec import REPO, SPEC

REQUIREMENTS_NAME = "requirements.txt"
REQUIREMENTS = SPEC.source_dir / REQUIREMENTS_NAME
PYPROJECT = REPO / "pyproject.toml"

# Shipped at pyproject.toml's version. Name -> why a student needs it.
LIBRARIES: dict[str, str] = {
    "numpy": "the arrays every function takes and returns",
    "torch": "the parity check against PyTorch's attention",
    "matplotlib": "the attention heatmaps",
    "ipywidgets": "the routing explorer",
    "jsonschema": "the evidence file's check against the shipped schema",
}
KERNEL: dict[str, str] = {"ipykernel": "the Python kernel Jupyter runs the notebook in"}
# Not in pyproject.toml (the grader needs no front end): the version installed here.
FRONT_END: dict[str, str] = {"jupyterlab": "the front end that opens the notebook"}
SHIPPED: tuple[str, ...] = (*LIBRARIES, *KERNEL, *FRONT_END)

# Never in a student's environment. Name -> why.
INSTRUCTOR_ONLY: dict[str, str] = {
    "nbgrader": "nbgrader's instructor extensions (Create Assignment, Formgrader)",
}
PIN_LINE = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[0-9][0-9A-Za-z.!+-]*)")


class StudentEnvError(RuntimeError):
    """The pins cannot be made: the installed version of a package is outside pyproject's range."""


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


def pins_for(current: dict[str, str] | None = None, pyproject: Path = PYPROJECT) -> dict[str, str]:
    """The pins the file must carry, in file order; ``current`` (the file's pins) are kept
    where pyproject still allows them, so a pin moves only when pyproject says so."""
    current = current or {}
    wanted = pyproject_requirements(pyproject)
    pins = {}
    for name in SHIPPED:
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


def render(pins: dict[str, str], pyproject: Path = PYPROJECT) -> str:
    """The file's text: a header a student can act on, the libraries, then Jupyter."""
    python = requires_python(pyproject)
    minimum = re.fullmatch(r">=\s*([0-9.]+)", python)
    python = f"{minimum[1]} or newer" if minimum else python
    lines = [
        f"# What the {SPEC.name} notebook needs (Python {python}). In a fresh virtual",
        "# environment: pip install -r requirements.txt",
        "# torch: on Linux, plain PyPI gives the large CUDA build; PyTorch's CPU wheel index",
        "# has the small CPU build of the same version, which is all this notebook needs.",
    ]
    lines += [f"{name}=={pins[name]}" for name in LIBRARIES]
    lines.append("# Jupyter: the kernel that runs the notebook, and the front end that opens it")
    lines += [f"{name}=={pins[name]}" for name in (*KERNEL, *FRONT_END)]
    return "\n".join(lines) + "\n"


def expected_text(path: Path = REQUIREMENTS, pyproject: Path = PYPROJECT) -> str:
    """What ``path`` must hold, keeping its pins that pyproject still allows."""
    current = parse(path.read_text(encoding="utf-8"))[0] if path.is_file() else {}
    return render(pins_for(current, pyproject), pyproject)


def drift(path: Path = REQUIREMENTS, pyproject: Path = PYPROJECT) -> list[str]:
    """Why ``path`` is not what pyproject.toml makes of it (empty = in sync). Installed
    versions are not compared: CI may install newer ones within pyproject's ranges."""
    fix = "(run: python -m autograder sync-solutions)"
    if not path.is_file():
        return [f"no {path.name} next to the notebook {fix}"]
    text = path.read_text(encoding="utf-8")
    pins, problems = parse(text)[0], leaks(text)
    wanted = pyproject_requirements(pyproject)
    problems += [f"{path.name} lacks {name}" for name in SHIPPED if name not in pins]
    problems += [f"{path.name} pins {name}, which the notebook does not need"
                 for name in pins if name not in SHIPPED]
    problems += [f"{path.name} pins {name}=={pins[name]}, pyproject.toml says {wanted[name]}"
                 for name in SHIPPED
                 if name in pins and name in wanted and not _allows(wanted[name], pins[name])]
    if not problems and text != render(pins, pyproject):
        problems.append(f"{path.name} is not in the generated form")
    return [f"{line} {fix}" for line in problems]


def write(path: Path = REQUIREMENTS, pyproject: Path = PYPROJECT) -> bool:
    """Rewrite ``path`` if it drifted; returns whether it changed."""
    if not drift(path, pyproject):
        return False
    path.write_text(expected_text(path, pyproject), encoding="utf-8")
    return True
