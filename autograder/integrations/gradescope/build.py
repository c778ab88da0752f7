"""Build ``autograder.zip``: what an instructor uploads to Gradescope as the autograder.

At the zip's root: ``setup.sh`` and ``run_autograder`` (Gradescope's contract),
``requirements.txt`` (pyproject.toml's runtime dependencies, exactly as pinned there), and
the grader's own code, the ``autograder`` and ``solutions`` packages with their data (the
hidden checks, the reference, the schema, the release notebook). Nothing else: no course
(submissions, gradebook, cohorts), no tests, no virtual environment, no git history.
Entries are sorted and dated 1980-01-01, so the same tree always gives the same zip.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import autograder
import solutions
from autograder.integrations.gradescope import scripts
from autograder.spec import REPO

ZIP_NAME = "autograder.zip"
DISTRIBUTION = "h2-attention"
PACKAGES = (Path(autograder.__file__).parent, Path(solutions.__file__).parent)
# The files of a package that the grader reads: code and its package data.
PACKAGE_SUFFIXES = frozenset({".py", ".toml", ".json", ".ipynb", ".j2", ".ini"})
EXECUTABLE = 0o755
READABLE = 0o644
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


class BuildError(RuntimeError):
    """The zip cannot be built as asked (one line: what and how to fix it)."""


def project_metadata() -> tuple[list[str], str]:
    """The runtime dependencies and the Python range: pyproject.toml's in a checkout,
    else the installed package's metadata (built from the same pyproject.toml)."""
    pyproject = REPO / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        return list(project["dependencies"]), project["requires-python"]
    try:
        requires = importlib.metadata.requires(DISTRIBUTION) or []
        python = importlib.metadata.metadata(DISTRIBUTION)["Requires-Python"] or ""
    except importlib.metadata.PackageNotFoundError:
        raise BuildError("no pyproject.toml and no installed h2-attention: run this from a "
                         "checkout of the repository or where the grader is installed") from None
    return [r for r in requires if "extra ==" not in r], python


def torch_pin(requirements: list[str]) -> str:
    """The ``torch==X`` line (setup.sh installs exactly that version's CPU build)."""
    for line in requirements:
        if re.fullmatch(r"torch\s*==\s*[0-9][0-9A-Za-z.]*", line.strip()):
            return line.strip().replace(" ", "")
    raise BuildError("pyproject.toml does not pin torch with ==: setup.sh installs one exact "
                     "CPU build, so pin it (torch==X.Y.Z)")


def minimum_python(requires_python: str) -> tuple[int, int]:
    """(3, 11) for ``>=3.11``: the version setup.sh checks the image has."""
    found = re.fullmatch(r"\s*>=\s*(\d+)\.(\d+)\s*", requires_python)
    if not found:
        raise BuildError(f"requires-python {requires_python!r} is not of the form >=X.Y")
    return int(found[1]), int(found[2])


def package_files() -> Iterator[tuple[Path, str]]:
    """(file, name in the zip) for every file the grader needs of its two packages."""
    for package in PACKAGES:
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package.parent)
            if (path.is_file() and path.suffix in PACKAGE_SUFFIXES
                    and not any(part.startswith((".", "__pycache__")) for part in relative.parts)):
                yield path, relative.as_posix()


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build(out_dir: Path, *, cohort: str | None = None, allow_weaker: bool = False) -> Path:
    """Write ``out_dir/autograder.zip`` and return its path. ``cohort`` and
    ``allow_weaker`` are passed on to every run of run-autograder."""
    requirements, requires_python = project_metadata()
    setup = scripts.setup_sh(torch_pin(requirements), minimum_python(requires_python))
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
        for path, name in package_files():
            _add(archive, name, path.read_bytes(), READABLE)
    temporary.replace(target)
    return target
