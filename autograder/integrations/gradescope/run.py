"""Grade one submission the way Gradescope's ``run_autograder`` expects.

Grades ASSIGNMENT: the one named, else the one the zip's configuration file names
(--config, which the zip's run_autograder passes), else the one assignment there is.
Reads the submission folder (default /autograder/submission) and writes
results.json (default /autograder/results/results.json, Gradescope's fields, Markdown
texts) plus feedback.html beside it. The student id, which decides the evidence
inputs, comes from --student-id, else from Gradescope's submission_metadata.json (the
first user's sid, else email), else "student". `python -m autograder gradescope build`
writes the zip whose run_autograder calls this.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_assignment_arguments, only_assignment
from autograder.grading.grade_one import GradingSession, grade_submission
from autograder.grading.submission import load_submission
from autograder.integrations.gradescope import results
from autograder.integrations.gradescope.scripts import CONFIG_JSON
from autograder.results import feedback_page as report
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError
from autograder.spec import SpecError

if TYPE_CHECKING:
    from autograder.assignments import Assignment

DEFAULT_ROOT = Path("/autograder")
RESULTS_JSON = "results.json"
METADATA_JSON = "submission_metadata.json"
CONFIGURED = "the one --config names, else the one there is"


class PathError(ValueError):
    """A path option that cannot be used as given; the message is one line for the TA."""


def student_from_metadata(metadata: Path) -> str | None:
    """The first user's sid (or email) in Gradescope's submission_metadata.json."""
    try:
        users = json.loads(metadata.read_text(encoding="utf-8")).get("users") or []
        user = users[0]
        return str(user.get("sid") or user.get("email") or "") or None
    except (OSError, ValueError, AttributeError, IndexError, TypeError):
        return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_assignment_arguments(parser, optional=True, when_left_out=CONFIGURED)
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help=f"the zip's {CONFIG_JSON}: which assignment it grades (written "
                             "by `gradescope build`; its run_autograder passes it)")
    parser.add_argument("--submission", type=Path, default=DEFAULT_ROOT / "submission",
                        help="folder with the notebook and evidence file (default: %(default)s)")
    parser.add_argument("--results", default=str(DEFAULT_ROOT / "results" / RESULTS_JSON),
                        help="where to write results.json, or a folder to write it in "
                             "(default: %(default)s)")
    parser.add_argument("--metadata", type=Path, default=DEFAULT_ROOT / METADATA_JSON,
                        help="Gradescope's submission metadata, or the folder that holds it "
                             "(default: %(default)s)")
    parser.add_argument("--student-id", help="student id (default: from the metadata)")
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from")
    parser.add_argument("--allow-weaker-isolation", action="store_true",
                        help="grade even where full isolation cannot be applied (recorded)")


def read_config(path: Path) -> tuple[str, list[Path]]:
    """The assignment a zip's configuration file names, and its folders of bundles
    (resolved against the file's folder); ``SpecError`` (one line) when it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        name = data["assignment"]
        folders = data.get("assignments", [])
        if not isinstance(name, str) or not isinstance(folders, list) or not all(
                isinstance(folder, str) for folder in folders):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not the file `gradescope build` writes"
        raise SpecError(f"--config {path}: {why}; rebuild the zip with `python -m autograder "
                        "gradescope build ASSIGNMENT`") from None
    return name, [path.parent / folder for folder in folders]


def chosen_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment to grade: named, else ``--config``'s, else the one there is (a
    ``SpecError`` naming the choices when there are several)."""
    if not args.assignment and args.config is not None:
        args.assignment, folders = read_config(args.config)
        args.assignments = [*folders, *(args.assignments or [])]
    return only_assignment(args)


def submitted_files(assignment: Assignment) -> str:
    """What a student uploads, in words: the notebook, and the evidence file if any."""
    files = [assignment.notebook, *([assignment.evidence_file] if assignment.evidence_file
                                    else [])]
    return " and ".join(files)


def resolve_paths(args: argparse.Namespace, assignment: Assignment) -> None:
    """Take each path option as a TA passes it, as Gradescope lays the files out: a folder for
    ``--results`` or ``--metadata`` means the file of Gradescope's name inside it. Else
    ``PathError``, before anything is graded (not a traceback after it)."""
    submission: Path = args.submission
    if not submission.exists():
        raise PathError(f"--submission {submission}: no such folder; pass the folder that holds "
                        f"{submitted_files(assignment)}")
    if not submission.is_dir():
        raise PathError(f"--submission {submission} is a file; pass the folder that holds it "
                        f"({submitted_files(assignment)})")
    given = str(args.results)  # a str: Path() would drop the trailing "/" of a new folder
    results_path = Path(given)
    if results_path.is_dir() or given.endswith(("/", os.sep)):
        results_path = results_path / RESULTS_JSON
    for parent in (results_path.parent, *results_path.parent.parents):
        if parent.exists() and not parent.is_dir():
            raise PathError(f"--results {args.results}: {parent} is a file, not a folder; pass "
                            f"a folder or a path ending in {RESULTS_JSON}")
    args.results = results_path
    metadata: Path = args.metadata
    if metadata.is_dir():
        metadata = metadata / METADATA_JSON
    if not args.student_id and metadata != DEFAULT_ROOT / METADATA_JSON and not metadata.is_file():
        raise PathError(f"--metadata {args.metadata}: no such file; pass Gradescope's "
                        f"{METADATA_JSON}, or the student id with --student-id")
    args.metadata = metadata


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    assignment = chosen_assignment(args)  # a SpecError is one line (autograder.cli)
    try:
        resolve_paths(args, assignment)
    except PathError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    student = args.student_id or student_from_metadata(args.metadata) or "student"
    submission = load_submission(args.submission, student, assignment=assignment)
    try:
        session = GradingSession.start(assignment, allow_weaker=args.allow_weaker_isolation)
        try:
            result = grade_submission(submission, session, cohort=args.cohort)
        finally:
            session.close()
    except (IsolationError, UidLeaseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        results.save(result, time.monotonic() - started, args.results, assignment)
        report.save(result, args.results.with_name("feedback.html"), assignment)
    except OSError as error:
        print(f"error: cannot write {args.results} (or feedback.html beside it): "
              f"{error.strerror or error}", file=sys.stderr)
        return 2
    print(f"{student}: {result.score:g} / {result.max_score:g} ({result.status}) -> {args.results}")
    return 0
