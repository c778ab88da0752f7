"""Every output the grader writes for the sample cohort, as digests to compare against.

Making grading cheaper (issue 40) must leave every output as it was, byte for byte: each
student's results.json, feedback.html and graded notebook, and grades.csv.
``tests/batch/sample_cohort_outputs.json`` holds their SHA-256 digests; ``test_same_outputs``
grades the cohort with today's grader (the session's ``graded_sample_cohort``) and compares.
Five fields of results.json are left out, because they are not the grade: how long grading
took (``seconds``), the day it was graded (``graded_on``: the digests must hold on any later
day, so the feedback page's "Graded on" day reads as ``<graded_on>`` too), the grading key (a
digest of the grader's code, which changes with every edit of it, and is there to make the
next run regrade) and the digests of the submission and of each part's inputs (the
reference-reading student's notebook names the checkout's path). That path reads as ``<repo>`` elsewhere, so a clone anywhere compares. Regenerate the file only when
an output is meant to change, and say so in the commit::

    .venv/bin/python -m tests.support.cohort_outputs tests/batch/sample_cohort_outputs.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path

from autograder.spec import REPO
from tests.support.cohort_scores import grade_sample_cohort
from tests.support.h2 import SPEC

NOT_THE_GRADE = ("seconds", "graded_on", "grading_key", "submission_hash", "inputs_hash")
GRADED_ON = "<dt>Graded on</dt><dd>{}</dd>"


def without(value: object, fields: tuple[str, ...] = NOT_THE_GRADE) -> object:
    """``value`` (plain JSON data) without ``fields`` (by default those that are not the
    grade), wherever they are."""
    if isinstance(value, dict):
        return {key: without(item, fields) for key, item in value.items() if key not in fields}
    if isinstance(value, list):
        return [without(item, fields) for item in value]
    return value


def _without_grading_day(page: bytes, results_json: Path) -> bytes:
    """The feedback page with its "Graded on" day (the record's ``graded_on``) as a placeholder."""
    day = json.loads(results_json.read_text(encoding="utf-8"))["extra_data"]["graded_on"]
    return page.replace(GRADED_ON.format(day).encode(), GRADED_ON.format("<graded_on>").encode())


def outputs(root: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of each output (results.json without ``NOT_THE_GRADE``)."""
    found = {"grades.csv": root / "grades.csv"}
    for folder in sorted((root / "autograded").glob(f"*/{SPEC.name}")):
        for name in ("results.json", "feedback.html", SPEC.notebook):
            found[str((folder / name).relative_to(root))] = folder / name
    digests = {}
    for name, path in found.items():
        data = path.read_bytes().replace(str(REPO).encode(), b"<repo>")
        if path.name == "feedback.html":
            data = _without_grading_day(data, path.with_name("results.json"))
        if path.name == "results.json":
            data = json.dumps(without(json.loads(data)), sort_keys=True).encode()
        digests[name] = hashlib.sha256(data).hexdigest()
    return digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        grade_sample_cohort(Path(tmp))
        args.out.write_text(json.dumps(outputs(Path(tmp)), indent=1, sort_keys=True) + "\n",
                            encoding="utf-8")


if __name__ == "__main__":
    main()
