"""Generate an assignment's student release from its source folder with nbgrader, and prove
it clean.

The release goes to the bundle's ``release`` folder (its spec's: by default ``release/``
inside the bundle, wherever it lives; a packaged bundle may name its checkout's committed
``release/<assignment>/``), or to ``--out DIR``, and is kept so that a course can pick the
assignment up without running anything. It must always be exactly what ``nbgrader
generate_assignment`` makes of the source folder (no drift) and must hold nothing from the
trusted side: no solution code, no hidden tests, no reference to the assignment's
reference package (when it lives outside the bundle) or ``autograder/``, and a
``requirements.txt`` that installs neither nbgrader nor this repository. ``--check``
verifies both without writing. nbgrader runs in a temporary course root of its own, so
nothing is written anywhere else (``autograder.authoring.authored`` says which bundle).
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

from autograder.assignments.bundle import CHECKS, DATA
from autograder.authoring import student_env
from autograder.authoring.authored import add_authoring_arguments, authoring_assignment
from autograder.base.course import GRADEBOOK_DB, Course
from autograder.base.nbgrader_command import nbgrader_command

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


# The temporary course root's nbgrader configuration: nothing but the root and what is
# never released (an evidence file an instructor's run left is left out when copying).
NBGRADER_CONFIG = """\
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*"]
"""


class ReleaseError(RuntimeError):
    """nbgrader could not generate the release (the message holds its log), or the folder to
    write it into holds something else (one line)."""


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
    (workdir / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(root=str(workdir)),
                                               encoding="utf-8")
    command = nbgrader_command(
        "generate_assignment",
        name,
        "--force",
        f"--CourseDirectory.root={workdir}",
        f"--CourseDirectory.db_url=sqlite:///{workdir / GRADEBOOK_DB}",
    )
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
    # nbformat (70 ms): not at a command's start
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
    # authoring.sync (1.3 ms): not at a command's start
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
    # nbformat (70 ms): not at a command's start
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


def fix_command(assignment: Assignment) -> str:
    """The command that regenerates the release, as the drift lines print it."""
    return f"run `python -m autograder generate-release {assignment.name}`"


def check(assignment: Assignment, committed: Path | None = None) -> list[str]:
    """Problems with the kept release (the bundle's ``release_dir`` by default): drift from
    the source folder and leaks (empty = good)."""
    committed = committed or assignment.release_dir
    if not (committed / assignment.notebook).exists():
        return [f"no release at {committed}: {fix_command(assignment)}"]
    with tempfile.TemporaryDirectory(prefix=f"{assignment.name}-release-") as tmp:
        generated = generate_into(Path(tmp), assignment)
        problems = [f"{line} ({fix_command(assignment)})"
                    for line in differences(generated, committed)]
    return problems + leaks(committed, assignment)


def require_replaceable(target: Path, assignment: Assignment) -> None:
    """``ReleaseError`` (one line) unless ``target`` may be replaced by a release: missing,
    empty, or an earlier release (it holds the notebook); never a folder holding the bundle,
    the source folder or a folder in it, nor the bundle's data/ or checks/."""
    target, bundle, source = target.resolve(), assignment.root.resolve(), assignment.source_dir
    if bundle.is_relative_to(target) or target in (bundle / DATA, bundle / CHECKS):
        held = f"is or holds the bundle's files ({bundle})"
    elif source.is_relative_to(target) or target.is_relative_to(source):
        held = f"is in or around the source folder {source}"
    elif target.is_file() or (target.is_dir() and any(target.iterdir())
                              and not (target / assignment.notebook).is_file()):
        held = f"holds other files and no {assignment.notebook} of an earlier release"
    else:
        return
    raise ReleaseError(f"cannot write the release into {target}: it {held}; name a folder "
                       "of its own (--out DIR, or `release = \"...\"` in the bundle's spec)")


def regenerate(assignment: Assignment, committed: Path | None = None) -> list[str]:
    """Replace the kept release (the bundle's ``release_dir`` by default) with a fresh one;
    returns the files that changed."""
    committed = committed or assignment.release_dir
    require_replaceable(committed, assignment)
    with tempfile.TemporaryDirectory(prefix=f"{assignment.name}-release-") as tmp:
        generated = generate_into(Path(tmp), assignment)
        changed = (differences(generated, committed) if committed.is_dir()
                   else ["(new release)"])
        if changed:
            shutil.rmtree(committed, ignore_errors=True)
            shutil.copytree(generated, committed)
    return changed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_authoring_arguments(parser)
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the release is stale or leaks trusted material",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR",
        help="the release's folder (default: the bundle's, its spec's `release`: "
             "release/ inside the bundle unless the spec names another)")


def run(args: argparse.Namespace) -> int:
    # pytest, via the checks' runner (110 ms): not at a command's start
    from autograder.grading.runner import require_consistent_spec

    assignment = authoring_assignment(args)  # one line if unknown or without a source folder
    require_consistent_spec(assignment)  # nothing is released with points the grader would refuse
    where = (args.out or assignment.release_dir).resolve()
    try:
        if args.check:
            problems = check(assignment, where)
        else:
            changed = regenerate(assignment, where)
            print(f"{where}: " + ("; ".join(changed) if changed else "already current"))
            problems = leaks(where, assignment)
    except ReleaseError as error:
        print(f"error: {error}" if "\n" not in str(error) else error, file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    print(f"{where}: " + ("current and leak-free" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0
