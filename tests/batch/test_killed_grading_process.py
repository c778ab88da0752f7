"""A grading process killed from outside (the OOM killer) costs only the submission it was
grading (issue 10): the rest of the queue is graded, the victim is retried alone once and
then reported as a grader error, never lost and never a student's zero."""

from __future__ import annotations

import os
import signal

import pytest

from autograder.base.course import Course
from autograder.batch import engine
from autograder.results.result import STATUS_ERROR
from tests.support.vectors import VECTORS, submit

pytestmark = pytest.mark.slow
ROSTER = [f"s{n}" for n in range(6)] + ["s-oom"]  # correct submissions of the small bundle
REAL = engine._grade_and_save


def killed_on_one(course, job, *args):  # noqa: ANN001, ANN201 - runs in the pool
    """The grading process dies (as under the OOM killer) whenever it grades s-oom."""
    if job.student == "s-oom":
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL(course, job, *args)


def test_a_killed_grading_process_costs_only_its_submission(tmp_path, options, monkeypatch):
    for student in ROSTER:
        submit(tmp_path, student)
    course = Course(tmp_path, VECTORS.name)
    monkeypatch.setattr(engine, "_grade_and_save", killed_on_one)
    summary = engine.grade_course(course, options=options, assignment=VECTORS)
    statuses = {result.student: result.status for result in summary.results}
    assert sorted(statuses) == sorted(ROSTER)
    assert statuses.pop("s-oom") == STATUS_ERROR
    assert set(statuses.values()) == {"graded"}
    assert all(r.score == VECTORS.total for r in summary.results if r.student != "s-oom")
    victim = next(r for r in summary.results if r.student == "s-oom")
    assert "killed twice" in victim.reason
