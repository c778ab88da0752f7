"""Every score the grader gives the sample cohort, as a record to compare against.

Speeding up grading (issue 17) must not change one grade. ``tests/batch/sample_cohort_scores.json``
was written by this module on the grader *before* that work (commit 791e02d); the test in
``tests/batch/test_same_scores.py`` grades the same cohort with today's grader and compares every
score of every ``results.json``: status, review flag, each part's points and diagnoses, each hidden
check's score. Regenerate it only when a grade is meant to change, and say so in the commit::

    .venv/bin/python -m tests.support.cohort_scores tests/batch/sample_cohort_scores.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.base.course import RESULTS_JSON
from autograder.bundles.h2_attention import samples as sample_cohort
from autograder.results.result import load
from autograder.spec import REPO
from tests.support.h2 import SPEC

COHORT = "demo-2026"
DUE = "2026-12-14 23:59:00 UTC"


def grade_sample_cohort(root: Path, *extra: str) -> dict[str, dict]:
    """Build the sample cohort (one submission per variant) under ``root``, grade it with the
    real command line, and return every student's scores."""
    sample_cohort.build_sample_cohort(root, cohort=COHORT)
    subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", SPEC.name, "--root", str(root),
         "--force", "--no-progress", "--cohort", COHORT, "--due", DUE, *extra],
        check=True, cwd=root, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's grader, installed or not
    )
    return scores(root)


def scores(root: Path) -> dict[str, dict]:
    """Student -> what decides their grade, read back from each ``results.json``."""
    found = {}
    for path in sorted((root / "autograded").glob(f"*/{SPEC.name}/{RESULTS_JSON}")):
        result = load(path)
        assert result is not None, f"{path} is not a readable results.json"
        found[result.student] = {
            "status": result.status,
            "needs_review": result.needs_review,
            "late": result.late,
            "total": sum(part.points for part in result.parts),
            "parts": {
                part.part: {
                    "points": part.points,
                    "needs_review": part.needs_review,
                    "diagnoses": sorted(part.diagnoses),
                }
                for part in result.parts
            },
            "tests": [[test.part, test.name, test.score] for test in result.tests],
        }
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the scores (JSON)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="h2-scores-") as folder:
        found = grade_sample_cohort(Path(folder) / "course")
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(found)} students' scores in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
