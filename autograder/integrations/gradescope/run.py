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
import sys
import time
from pathlib import Path

from autograder.grading.grade_one import GradingSession, grade_submission
from autograder.grading.submission import load_submission
from autograder.integrations.gradescope import results
from autograder.results import feedback_page as report
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError

DEFAULT_ROOT = Path("/autograder")


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
    parser.add_argument("--results", type=Path, default=DEFAULT_ROOT / "results" / "results.json",
                        help="where to write results.json (default: %(default)s)")
    parser.add_argument("--metadata", type=Path, default=DEFAULT_ROOT / "submission_metadata.json",
                        help="Gradescope's submission metadata (default: %(default)s)")
    parser.add_argument("--student-id", help="student id (default: from the metadata)")
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from")
    parser.add_argument("--allow-weaker-isolation", action="store_true",
                        help="grade even where full isolation cannot be applied (recorded)")


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
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
    results.save(result, time.monotonic() - started, args.results)
    report.save(result, args.results.with_name("feedback.html"))
    print(f"{student}: {result.score:g} / {result.max_score:g} ({result.status}) -> {args.results}")
    return 0
