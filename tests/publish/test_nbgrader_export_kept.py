"""``publish`` rewrites nbgrader's export only when the gradebook changed since it was
written: the export is a function of the gradebook alone, and costs seconds for a large root."""

from __future__ import annotations

import os
import time

from autograder.base.course import Course
from autograder.publish import views
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of


def stamp(path, seconds_ago: float) -> None:
    """A file time set, not left to the clock (coarse: one kernel tick)."""
    ns = int((time.time() - seconds_ago) * 1e9)
    os.utime(path, ns=(ns, ns))


def test_the_export_is_rewritten_only_after_the_gradebook_changed(tmp_path, graded_sample_cohort,
                                                                   monkeypatch):
    root = copy_of(graded_sample_cohort, tmp_path / "root")
    course = Course(root, SPEC.name)
    export = root / views.NBGRADER_EXPORT
    export.write_text("student_id,score\n")  # an export exists: publish keeps it current
    exported: list = []
    real = views.nbgrader_export
    monkeypatch.setattr(views, "nbgrader_export",
                        lambda course, target: exported.append(target) or real(course, target))

    stamp(course.gradebook_db(), 60)
    stamp(export, 120)  # older than the gradebook: rewritten
    done = views.Published()
    views._nbgrader_export(course, done)
    assert exported == [export] and "s001-correct" in export.read_text()
    assert done.views == [views.NBGRADER_EXPORT]

    stamp(export, 30)  # newer than the gradebook: kept, and marked current
    before = export.read_text()
    views._nbgrader_export(course, views.Published())
    assert exported == [export] and export.read_text() == before
    assert os.path.getmtime(export) > os.path.getmtime(course.gradebook_db())

    stamp(course.gradebook_db(), 10)  # a grade written since (record, formgrader)
    stamp(export, 20)
    views._nbgrader_export(course, views.Published())
    assert exported == [export, export]
