"""Feedback copies for `nbgrader release_feedback` (issue 51): once a root has copies, a
student graded later gets one with the next command that changes grades (`status` names the
students without one until then), and a copy changed after a release is named, in `status`
and in the command's output, until `release_feedback` runs again. Results saved as the
grader saves them; the release is nbgrader's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.publish.status import status_lines
from autograder.publish.views import publish
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult, save
from autograder.views.nbgrader_feedback import SECRET_TXT, feedback_page, write_feedback
from tests.support.vectors import VECTORS


def _graded(course: Course, student: str) -> None:
    """``student`` submitted through nbgrader (timestamp, secret) and graded."""
    submitted = course.submitted(student)
    submitted.mkdir(parents=True)
    (submitted / TIMESTAMP_TXT).write_text("2026-12-01 10:00:00.000000 UTC")
    (submitted / SECRET_TXT).write_text(f"secret-of-{student}")
    parts = [PartResult(part.name, part.points, part.points) for part in VECTORS.parts]
    save(SubmissionResult(student, VECTORS.name, STATUS_GRADED, parts=parts),
         course.autograded(student) / RESULTS_JSON)
    (course.autograded(student) / FEEDBACK_HTML).write_text(f"<p>{student}: full marks</p>")


def _copies_line(course: Course) -> str:
    (line,) = [line for line in status_lines(course, VECTORS) if "feedback copies" in line]
    return line


def _released_line(course: Course) -> str:
    (line,) = [line for line in status_lines(course, VECTORS) if "released feedback" in line]
    return line


def test_a_student_graded_later_gets_a_copy_and_is_stale_until_then(tmp_path):
    course = Course(tmp_path / "course", VECTORS.name)
    for student in ("s1", "s2"):
        _graded(course, student)
    assert len(write_feedback(course, VECTORS)) == 2
    assert _copies_line(course).endswith("current")

    _graded(course, "s3")  # collected and graded later
    line = _copies_line(course)
    assert "STALE" in line and "no copy yet: s3" in line, line

    done = publish(course, VECTORS, ["s3"])  # what autograde or review set ends with
    page = feedback_page(course, "s3", VECTORS)
    assert page.read_text() == "<p>s3: full marks</p>"
    assert (page.parent / SECRET_TXT).read_text() == "secret-of-s3"
    assert (page.parent / TIMESTAMP_TXT).is_file()
    assert "feedback cop" in done.line() and not done.stale
    assert _copies_line(course).endswith("current")


def test_a_root_without_copies_gets_none(tmp_path):
    course = Course(tmp_path / "course", VECTORS.name)
    _graded(course, "s1")
    assert publish(course, VECTORS, ["s1"]).line() == ""
    assert not feedback_page(course, "s1", VECTORS).exists()
    assert not [line for line in status_lines(course, VECTORS) if "feedback copies" in line]


def _release_feedback(root: Path) -> None:
    done = subprocess.run([*nbgrader_command(), "release_feedback", VECTORS.name],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_feedback_changed_after_its_release_is_named_until_released_again(tmp_path):
    course = Course(tmp_path / "course", VECTORS.name)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    course.root.mkdir(parents=True)
    (course.root / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = 'dl'\nc.Exchange.root = {str(exchange)!r}\n")
    for student in ("s1", "s2"):
        _graded(course, student)
    write_feedback(course, VECTORS)
    _release_feedback(course.root)
    assert len(list((exchange / "dl" / "feedback").glob("*.html"))) == 2
    assert _released_line(course).endswith("current"), _released_line(course)

    # A decision rewrites s1's page and its copy: the page in the exchange is the old one.
    (course.autograded("s1") / FEEDBACK_HTML).write_text("<p>s1: 7 by a TA</p>")
    said = publish(course, VECTORS, ["s1"]).line()
    assert ("released feedback of s1 is older than its grade: run `nbgrader release_feedback "
            f"{VECTORS.name}` in {course.root} again") in said, said
    line = _released_line(course)
    assert "STALE" in line and "older than the grade: s1" in line and "s2" not in line, line

    _graded(course, "s3")  # graded after the release: a copy, not released
    said = publish(course, VECTORS, ["s3"]).line()
    assert "feedback of s3 is not released yet" in said, said
    assert "not released: s3" in _released_line(course)

    _release_feedback(course.root)
    assert _released_line(course).endswith("current"), _released_line(course)
    assert not publish(course, VECTORS, ["s1"]).behind
