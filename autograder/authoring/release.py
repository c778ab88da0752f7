"""Generate an assignment's student release from source/ with nbgrader, and prove it clean.

``release/<assignment>/`` is committed so that a course can pick the assignment up
without running anything. It must always be exactly what ``nbgrader
generate_assignment`` makes of ``source/<assignment>/`` (no drift) and must hold
nothing from the trusted side: no solution code, no hidden tests, no reference to the
assignment's reference package (when it lives outside the bundle) or ``autograder/``,
and a ``requirements.txt`` that installs neither nbgrader nor this repository.
``--check`` verifies both without writing. Works from a checkout
(``autograder.authoring.checkout``).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.authoring import student_env
from autograder.authoring.checkout import add_authoring_arguments, authoring_assignment
from autograder.batch.course import GRADEBOOK_DB, Course
from autograder.spec import REPO

if TYPE_CHECKING:
    from autograder.assignments.bundle import Assignment

# Text that must never reach a student, whatever the assignment. Each pattern has the
# reason it is banned; ``forbidden`` adds the assignment's reference package.
MARKERS = {
    r"BEGIN SOLUTION|END SOLUTION": "an nbgrader solution marker",
    r"BEGIN HIDDEN TESTS|END HIDDEN TESTS": "an nbgrader hidden-test marker",
}
ENGINE = {r"\bautograder\b": "a reference to the trusted autograder/ package"}


def forbidden(assignment: Assignment) -> dict[str, str]:
    """Pattern -> why it is banned: the markers, the engine and, for a reference importable
    outside its bundle, its package's name (an import or a path)."""
    reference = assignment.spec.reference
    root = assignment.root
    if (root / f"{reference}.py").is_file() or (root / reference).is_dir():
        return {**MARKERS, **ENGINE}  # inside the bundle: reached only through the engine's
    top = reference.partition(".")[0]
    return {**MARKERS, rf"\b{re.escape(top)}[/.]": f"a reference to the trusted {top}/ package",
            **ENGINE}


class ReleaseError(RuntimeError):
    """nbgrader could not generate the release; the message holds its log."""


def nbgrader_env() -> dict[str, str]:
    """Environment for nbgrader subprocesses: it runs `alembic` through PATH, so the
    interpreter's own bin directory must come first even when the venv is not activated."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def generate_into(workdir: Path, assignment: Assignment) -> Path:
    """Run ``nbgrader generate_assignment`` on a copy of the assignment's source folder in
    ``workdir`` (without an evidence file an instructor's test run left there);
    returns the generated ``release/<assignment>`` directory."""
    name = assignment.name
    course = Course(workdir, name)
    ignored = [assignment.evidence_file] if assignment.evidence_file else []
    shutil.copytree(assignment.source_dir, course.source_dir,
                    ignore=shutil.ignore_patterns(*ignored))
    shutil.copy(REPO / "nbgrader_config.py", workdir / "nbgrader_config.py")
    command = [
        sys.executable,
        "-m",
        "nbgrader",
        "generate_assignment",
        name,
        "--force",
        f"--CourseDirectory.root={workdir}",
        f"--CourseDirectory.db_url=sqlite:///{workdir / GRADEBOOK_DB}",
    ]
    done = subprocess.run(
        command, cwd=workdir, env=nbgrader_env(), capture_output=True, text=True, check=False
    )
    released = course.release_dir
    if done.returncode != 0 or not (released / assignment.notebook).exists():
        raise ReleaseError(f"nbgrader generate_assignment failed:\n{done.stderr[-4000:]}")
    return released


def differences(expected: Path, actual: Path) -> list[str]:
    """Files that differ between two release directories (relative paths, sorted)."""
    found: list[str] = []
    comparison = filecmp.dircmp(expected, actual)

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        found.extend(f"only in generated: {prefix}{name}" for name in cmp.left_only)
        found.extend(f"only in committed: {prefix}{name}" for name in cmp.right_only)
        found.extend(f"differs: {prefix}{name}" for name in cmp.diff_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(comparison, "")
    return sorted(found)


def leaks(release_dir: Path, assignment: Assignment) -> list[str]:
    """Everything in ``assignment``'s release in ``release_dir`` that a student must not
    see, with the reason."""
    problems = []
    patterns = forbidden(assignment)
    for path in sorted(release_dir.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern, reason in patterns.items():
            if re.search(pattern, text):
                problems.append(f"{path.name}: contains {reason} ({pattern})")
        if path.name == student_env.REQUIREMENTS_NAME:  # the student's environment
            problems += [f"{path.name}: {line}" for line in student_env.leaks(text)]
    import nbformat

    notebook = nbformat.read(release_dir / assignment.notebook, as_version=4)
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if (
            meta.get("solution")
            and cell.cell_type == "code"
            and "NotImplementedError" not in cell.source
        ):
            problems.append(f"solution cell {_grade_id(cell)!r} is not a stub")
    return problems


def _grade_id(cell: object) -> str | None:
    from autograder.authoring.sync import grade_id

    return grade_id(cell)


def missing_parts(release_dir: Path, assignment: Assignment) -> list[str]:
    """Graded parts of ``assignment`` whose cell the release in ``release_dir`` lacks.

    A cohort released with an older notebook (before a part was added) would lose
    that part's points for work it was never asked to do; the grader refuses it
    instead. Empty when the folder holds no release notebook (nothing to compare)."""
    path = release_dir / assignment.notebook
    if not path.is_file():
        return []
    import nbformat

    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - an unreadable release is reported as lacking everything
        return list(assignment.part_points)
    present = {_grade_id(cell) for cell in notebook.cells}
    return [name for name in assignment.part_points
            if assignment.part(name).grade_cell not in present]


def stale_release_message(release_dir: Path, missing: list[str]) -> str:
    """One line: which parts an older release lacks, and the two ways forward."""
    return (f"the release in {release_dir} has no cell for {', '.join(missing)}, which this "
            "grader grades: its students got an older notebook. Grade them with the grader "
            "version they were released with, or release the current notebook to them first")


def check(assignment: Assignment, committed: Path | None = None) -> list[str]:
    """Problems with the committed release (``release/<assignment>/`` by default): drift
    from source/ and leaks (empty = good)."""
    committed = committed or assignment.release_dir
    if not (committed / assignment.notebook).exists():
        return [f"no committed release at {committed}: run `make release`"]
    with tempfile.TemporaryDirectory(prefix=f"{assignment.name}-release-") as tmp:
        generated = generate_into(Path(tmp), assignment)
        problems = [f"{line} (run `make release`)" for line in differences(generated, committed)]
    return problems + leaks(committed, assignment)


def regenerate(assignment: Assignment, committed: Path | None = None) -> list[str]:
    """Replace the committed release with a fresh one; returns the files that changed."""
    committed = committed or assignment.release_dir
    with tempfile.TemporaryDirectory(prefix=f"{assignment.name}-release-") as tmp:
        generated = generate_into(Path(tmp), assignment)
        changed = differences(generated, committed) if committed.exists() else ["(new release)"]
        if changed:
            shutil.rmtree(committed, ignore_errors=True)
            shutil.copytree(generated, committed)
    return changed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_authoring_arguments(parser)
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if release/ is stale or leaks trusted material",
    )


def run(args: argparse.Namespace) -> int:
    from autograder.grading.runner import require_consistent_spec

    assignment = authoring_assignment(args)  # one line if unknown or not in this checkout
    require_consistent_spec(assignment)  # nothing is released with points the grader would refuse
    where = f"release/{assignment.name}"
    try:
        if args.check:
            problems = check(assignment)
        else:
            changed = regenerate(assignment)
            print(f"{where}: " + ("; ".join(changed) if changed else "already current"))
            problems = leaks(assignment.release_dir, assignment)
    except ReleaseError as error:
        print(error, file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    print(f"{where}: " + ("current and leak-free" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0
