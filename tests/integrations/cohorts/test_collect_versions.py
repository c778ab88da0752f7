"""`cohort collect` keeps every version a student submits through a real nbgrader exchange
(issue 37): the submission collected first is kept before `nbgrader collect --update`
replaces it, each with the receipt recorded for it; graded under `version_rule =
"last_on_time"`, the on-time one counts over the late resubmission, its lateness judged by
its own receipt (the course's receipt is the late one's by then). The assignment is the
small ``vectors`` test bundle (with a source folder: ``tests/support/vectors_source.py``)."""

from __future__ import annotations

import json
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.batch import versions
from autograder.batch.engine import BatchOptions
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.results.result import load
from autograder.sandbox.limits import Limits
from tests.support.cohort_config import term_config
from tests.support.commands import nbgrader_ok
from tests.support.vectors import REFERENCE, VECTORS, WRONG_NORMALIZE, solved_notebook
from tests.support.vectors_source import bundles_with_source

pytestmark = pytest.mark.slow

ASSIGNMENT = VECTORS.name
FAST = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3))
BUGGY = REFERENCE | {"normalize": WRONG_NORMALIZE}  # 6 of 10: normalize's 4 points lost


def write_config(path: Path, tmp: Path, due: str) -> Path:
    return term_config(tmp, due, cohort='version_rule = "last_on_time"', path=path)


def submit(cohort, home: Path, *, bug: bool) -> None:  # noqa: ANN001
    """Solve (with a bug, or not) in the student's fetched folder and submit it."""
    notebook = solved_notebook(BUGGY if bug else REFERENCE)
    (home / ASSIGNMENT / VECTORS.notebook).write_text(json.dumps(notebook), encoding="utf-8")
    nbgrader_ok(home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
               f"--Exchange.root={cohort.exchange}", "--student=s1",
               f"--Exchange.cache={home / '.cache'}")


def test_collect_keeps_each_version_and_the_on_time_one_counts(tmp_path):
    bundles_with_source(tmp_path / "bundles")
    config = write_config(tmp_path / "cohorts.toml", tmp_path, "2030-01-01 00:00:00 UTC")
    cohort = get_cohort("term", config)
    workflow.release(cohort)
    home = tmp_path / "home"
    home.mkdir()
    nbgrader_ok(home, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
               f"--Exchange.root={cohort.exchange}")
    submit(cohort, home, bug=True)  # on time, with a bug
    said = workflow.collect(cohort)
    course = Course(cohort.root, ASSIGNMENT)
    (first,) = versions.kept(course, "s1")
    assert first.receipt is not None and first.receipt.received_at  # kept with its receipt
    assert any("1 new version(s) kept" in line for line in said)
    time.sleep(1.2)
    due = datetime.now(UTC)
    time.sleep(1.2)
    shutil.rmtree(home / ".cache")  # a submit of its own, not a cached one
    # As in a root collected before versions were kept: the next collect keeps the current
    # submission before nbgrader replaces it.
    shutil.rmtree(course.root / versions.VERSIONS)
    submit(cohort, home, bug=False)  # late, correct
    assert any("1 new version(s) kept" in line for line in workflow.collect(cohort))
    assert not any("version(s) kept" in line for line in workflow.collect(cohort))  # idempotent
    kept = versions.kept(course, "s1")
    assert [v.hash for v in kept][0] == first.hash and len(kept) == 2
    assert (first.files / VECTORS.notebook).is_file()  # nbgrader replaced submitted/, not this
    assert kept[1].receipt is not None and kept[1].receipt.submission_hash == kept[1].hash

    write_config(config, tmp_path, f"{due:%Y-%m-%d %H:%M:%S.%f} UTC")
    cohort = get_cohort("term", config)
    summary = workflow.grade(cohort, FAST)
    (result,) = summary.results
    assert result.version["rule"] == "last_on_time" and result.version["why"] == "last_on_time"
    assert result.version["counted"] == first.short
    assert not result.late and result.time_source == "exchange"
    assert result.parts_score == 6  # the buggy on-time one, not the correct late one
    saved = load(course.autograded("s1") / RESULTS_JSON)
    assert saved.submission_hash == first.hash
    late = load(kept[1].results_json)
    assert late.late and late.parts_score == VECTORS.total_points  # graded and kept too
    assert [v["late"] for v in saved.version["versions"]] == ["no", "yes"]
