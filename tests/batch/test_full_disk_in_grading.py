"""A disk that fills up while a grading process saves a result stops the run (issue 51, item
11): the machine's failure, not the student's nor the grader's, so never a "grader error" row
for that student (and the next, and the next) in grades.csv; ``autograder.cli`` says it in
one line. The grading process meets a real ENOSPC: a write to ``/dev/full``, as saving its
results.json would on a full disk (the tmpfs of tests/cli/test_resources.py fills up at a
moment that varies)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.batch import engine
from tests.support.vectors import VECTORS, submit

pytestmark = pytest.mark.slow
REAL = engine._grade_and_save


def saved_to_a_full_disk(course, job, *args):  # noqa: ANN001, ANN201 - runs in the pool
    """s1's result is written where the device is full, as on a disk that filled up."""
    if job.student == "s1":
        with open("/dev/full", "w") as full:
            full.write("{}")
            full.flush()
    return REAL(course, job, *args)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this machine")
def test_a_full_disk_in_a_grading_process_stops_the_run(tmp_path: Path, options, monkeypatch
                                                        ) -> None:
    for student in ("s0", "s1", "s2"):
        submit(tmp_path, student)
    monkeypatch.setattr(engine, "_grade_and_save", saved_to_a_full_disk)
    with pytest.raises(OSError) as stopped:
        engine.grade_course(Course(tmp_path, VECTORS.name), options=options,
                            assignment=VECTORS)
    assert stopped.value.errno == errno.ENOSPC
    assert not (tmp_path / "grades.csv").exists()  # no row says s1's grader failed
