"""Grade one submission the way Gradescope's ``run_autograder`` expects.

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

from autograder.grading.grade_one import GradingSession, grade_submission
from autograder.grading.submission import load_submission
from autograder.integrations.gradescope import results
from autograder.results import feedback_page as report
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError
from autograder.spec import SPEC

DEFAULT_ROOT = Path("/autograder")
RESULTS_JSON = "results.json"
METADATA_JSON = "submission_metadata.json"


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


def resolve_paths(args: argparse.Namespace) -> None:
    """Take each path option as a TA passes it, as Gradescope lays the files out: a folder for
    ``--results`` or ``--metadata`` means the file of Gradescope's name inside it. Else
    ``PathError``, before anything is graded (not a traceback after it)."""
    submission: Path = args.submission
    if not submission.exists():
        raise PathError(f"--submission {submission}: no such folder; pass the folder that holds "
                        f"{SPEC.notebook} and {SPEC.evidence_file}")
    if not submission.is_dir():
        raise PathError(f"--submission {submission} is a file; pass the folder that holds it "
                        f"({SPEC.notebook} and {SPEC.evidence_file})")
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
    try:
        resolve_paths(args)
    except PathError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    student = args.student_id or student_from_metadata(args.metadata) or "student"
    submission = load_submission(args.submission, student)
    try:
        session = GradingSession.start(allow_weaker=args.allow_weaker_isolation)
        try:
            result = grade_submission(submission, session, cohort=args.cohort)
        finally:
            session.close()
    except (IsolationError, UidLeaseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        results.save(result, time.monotonic() - started, args.results)
        report.save(result, args.results.with_name("feedback.html"))
    except OSError as error:
        print(f"error: cannot write {args.results} (or feedback.html beside it): "
              f"{error.strerror or error}", file=sys.stderr)
        return 2
    print(f"{student}: {result.score:g} / {result.max_score:g} ({result.status}) -> {args.results}")
    return 0
