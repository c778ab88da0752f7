"""Build ``autograder.zip`` for one assignment: what an instructor uploads to Gradescope.

At the zip's root: ``setup.sh`` and ``run_autograder`` (Gradescope's contract),
``requirements.txt`` (pyproject.toml's runtime dependencies, exactly as pinned there; torch
only for an assignment whose sandbox preloads it, which setup.sh then installs as PyTorch's
CPU build at its exact pin),
``gradescope_assignment.json`` (which assignment the zip grades, where a student's id comes
from when Gradescope gives no ``sid``, the late policy, when the hidden checks' results
show: plain data, ``zip_config``; its
run_autograder passes it to ``run-autograder --config``), and the grader's own code: the
engine (the ``autograder`` package without the bundles of other assignments), the one
assignment's bundle (in ``autograder/bundles/`` when it is the package's, else in
``assignments/``; without the source notebook and the release a bundle may keep inside,
which grading never reads) and its reference when that lives outside the bundle (its package).
Nothing else: no course (submissions, gradebook, cohorts), no tests, no virtual
environment, no git history. Entries are sorted and dated 1980-01-01, so the same tree
always gives the same zip.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import autograder
from autograder.integrations.gradescope import scripts
from autograder.integrations.gradescope.scripts import CONFIG_JSON
from autograder.integrations.gradescope.zip_config import (
    DEFAULT_VISIBILITY,
    SID_ONLY,
    VISIBILITIES,
    ZipConfig,
)
from autograder.results.late_policy import LatePolicy
from autograder.spec import REPO

if TYPE_CHECKING:
    from autograder.assignments import Assignment

ZIP_NAME = "autograder.zip"
ENGINE = Path(autograder.__file__).parent
BUNDLES = ENGINE / "bundles"  # the package's bundles: only the one graded goes in
FOLDER_BUNDLES = "assignments"  # in the zip: the bundle, when it came from a folder
# The files of a package that the grader reads: code and its package data.
PACKAGE_SUFFIXES = frozenset({".py", ".toml", ".json", ".ipynb", ".j2", ".ini"})
EXECUTABLE = 0o755
READABLE = 0o644
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


class BuildError(RuntimeError):
    """The zip cannot be built as asked (one line: what and how to fix it)."""


def distribution() -> str:
    """The installed distribution that holds the ``autograder`` package (its metadata has
    the dependencies when there is no pyproject.toml to read them from)."""
    names = importlib.metadata.packages_distributions().get(autograder.__name__, [])
    if not names:
        raise BuildError("no pyproject.toml and no installed distribution of the grader: run "
                         "this from a checkout of the repository or where the grader is "
                         "installed")
    return names[0]


def project_metadata() -> tuple[list[str], str]:
    """The runtime dependencies and the Python range: pyproject.toml's in a checkout,
    else the installed package's metadata (built from the same pyproject.toml)."""
    pyproject = REPO / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        return list(project["dependencies"]), project["requires-python"]
    name = distribution()
    requires = importlib.metadata.requires(name) or []
    python = importlib.metadata.metadata(name)["Requires-Python"] or ""
    return [r for r in requires if "extra ==" not in r], python


def torch_pin(requirements: list[str]) -> str:
    """The ``torch==X`` line (setup.sh installs exactly that version's CPU build)."""
    for line in requirements:
        if re.fullmatch(r"torch\s*==\s*[0-9][0-9A-Za-z.]*", line.strip()):
            return line.strip().replace(" ", "")
    raise BuildError("pyproject.toml does not pin torch with ==: setup.sh installs one exact "
                     "CPU build for an assignment that preloads torch, so pin it (torch==X.Y.Z)")


def preloads_torch(assignment: Assignment) -> bool:
    """Whether the assignment's sandbox imports torch (its spec's ``preload``): only then
    does the zip install it."""
    return any(name.partition(".")[0] == "torch" for name in assignment.spec.preload)


def _names_torch(requirement: str) -> bool:
    return re.match(r"\s*torch\s*(?:[\[<>=!~;@(]|$)", requirement, flags=re.I) is not None


def zip_requirements(assignment: Assignment, requirements: list[str]) -> tuple[list[str], str | None]:
    """(requirements.txt's lines, the torch pin setup.sh installs first or None): the
    project's dependencies, less torch for an assignment that does not preload it."""
    if preloads_torch(assignment):
        return requirements, torch_pin(requirements)
    return [line for line in requirements if not _names_torch(line)], None


def minimum_python(requires_python: str) -> tuple[int, int]:
    """(3, 11) for ``>=3.11``: the version setup.sh checks the image has."""
    found = re.fullmatch(r"\s*>=\s*(\d+)\.(\d+)\s*", requires_python)
    if not found:
        raise BuildError(f"requires-python {requires_python!r} is not of the form >=X.Y")
    return int(found[1]), int(found[2])


def _hidden(relative: Path) -> bool:
    return any(part.startswith((".", "__pycache__")) for part in relative.parts)


def _tree(top: Path, prefix: str, suffixes: frozenset[str] | None) -> Iterator[tuple[Path, str]]:
    """(file, name in the zip) for the files of ``top`` under ``prefix`` (``suffixes``: only
    those; None: every file), hidden ones and caches left out."""
    if top.is_file():
        yield top, prefix
        return
    for path in sorted(top.rglob("*")):
        relative = path.relative_to(top)
        if (path.is_file() and not _hidden(relative) and path.suffix not in (".pyc", ".pyo")
                and (suffixes is None or path.suffix in suffixes)):
            yield path, f"{prefix}/{relative.as_posix()}"


def _engine_files() -> Iterator[tuple[Path, str]]:
    """The ``autograder`` package less every assignment bundle in it."""
    for path, name in _tree(ENGINE, ENGINE.name, PACKAGE_SUFFIXES):
        if not path.is_relative_to(BUNDLES) or path.parent == BUNDLES:
            yield path, name


def reference_outside(assignment: Assignment) -> Path | None:
    """The top-level package (or module) of the reference, when it is not in the bundle."""
    name = assignment.spec.reference
    if (assignment.root / f"{name}.py").is_file() or (assignment.root / name).is_dir():
        return None
    found = importlib.util.find_spec(name.partition(".")[0])
    if found is None or found.origin is None:
        raise BuildError(f"assignment {assignment.name!r}: its reference {name!r} cannot be "
                         "found to put in the zip")
    origin = Path(found.origin)
    return origin.parent if found.submodule_search_locations else origin


def package_files(assignment: Assignment) -> Iterator[tuple[Path, str]]:
    """(file, name in the zip) for every file the grader needs to grade ``assignment``."""
    yield from _engine_files()
    packaged = assignment.origin == "package"
    where = f"{ENGINE.name}/{BUNDLES.name}" if packaged else FOLDER_BUNDLES
    authoring = (assignment.source_dir, assignment.release_dir)
    yield from ((path, name) for path, name in _tree(assignment.root, f"{where}/{assignment.name}",
                                                     None)
                if not any(path.is_relative_to(folder) for folder in authoring))
    reference = reference_outside(assignment)
    if reference is not None:
        yield from _tree(reference, reference.name, PACKAGE_SUFFIXES)


def config(assignment: Assignment, *, student_id: str = SID_ONLY,
           roster: dict[str, str] | None = None,
           late_policy: LatePolicy | None = None,
           hidden_visibility: str = DEFAULT_VISIBILITY) -> ZipConfig:
    """The zip's ``gradescope_assignment.json``: the assignment, where its bundle is, where
    a student id comes from without a ``sid``, the late policy (None or inactive: none), and
    when students see the hidden checks' results (``zip_config.VISIBILITIES``)."""
    folders = () if assignment.origin == "package" else (FOLDER_BUNDLES,)
    policy = late_policy if late_policy is not None and late_policy.active else None
    return ZipConfig(assignment.name, folders, student_id, dict(roster or {}), policy,
                     hidden_visibility)


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build(out_dir: Path, assignment: Assignment, *, cohort: str | None = None,
          allow_weaker: bool = False, student_id: str = SID_ONLY,
          roster: dict[str, str] | None = None, late_policy: LatePolicy | None = None,
          hidden_visibility: str = DEFAULT_VISIBILITY) -> Path:
    """Write ``out_dir/autograder.zip``, which grades ``assignment``, and return its path.
    ``cohort`` and ``allow_weaker`` are passed on to every run of run-autograder;
    ``student_id``, ``roster``, ``late_policy`` and ``hidden_visibility`` go into its
    configuration (``config``)."""
    if hidden_visibility not in VISIBILITIES:
        raise BuildError(f"hidden visibility {hidden_visibility!r} is not one of "
                         f"{', '.join(VISIBILITIES)}")
    settings = config(assignment, student_id=student_id, roster=roster, late_policy=late_policy,
                      hidden_visibility=hidden_visibility)
    requirements, requires_python = project_metadata()
    requirements, torch = zip_requirements(assignment, requirements)
    setup = scripts.setup_sh(torch, minimum_python(requires_python))
    options = ([f"--cohort={cohort}"] if cohort else []) + (
        ["--allow-weaker-isolation"] if allow_weaker else [])
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildError(f"cannot create {out_dir}: {error.strerror or error}") from None
    target = out_dir / ZIP_NAME
    temporary = target.with_name(f".{ZIP_NAME}.partial")
    with zipfile.ZipFile(temporary, "w") as archive:
        _add(archive, "setup.sh", setup.encode(), EXECUTABLE)
        _add(archive, "run_autograder", scripts.run_autograder(options).encode(), EXECUTABLE)
        _add(archive, scripts.REQUIREMENTS_TXT, ("\n".join(requirements) + "\n").encode(),
             READABLE)
        _add(archive, CONFIG_JSON, settings.to_json().encode(), READABLE)
        for path, name in package_files(assignment):
            _add(archive, name, path.read_bytes(), READABLE)
    temporary.replace(target)
    return target
