"""What the report reads: the trusted side's outputs of a graded course root, nothing else.

Per student ``autograded/<student>/<assignment>/results.json`` (written by the
grader, re-read with ``autograder.results.result.load``) and the course's
``grades.csv``. A student who has a submission or a row in grades.csv but no
readable results.json is listed, not guessed: the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.base.course import AUTOGRADED, GRADES_CSV, RESULTS_JSON, Course
from autograder.results.result import SubmissionResult, load
from autograder.views import grades_csv


class ReportError(RuntimeError):
    """The report cannot be written (it says why and what to run first)."""


@dataclass
class GradedCourse:
    """Every saved result of one assignment in a course root, by student."""

    course: Course
    results: list[SubmissionResult]
    without_results: list[str] = field(default_factory=list)  # submitted or in grades.csv
    grades_rows: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.course.root

    @property
    def students(self) -> list[str]:
        """Every student the report knows of (with or without a result), sorted."""
        return sorted({r.student for r in self.results} | set(self.without_results))


def load_course(root: Path, assignment: str) -> GradedCourse:
    """The graded course at ``root``; ``ReportError`` when nothing was graded there."""
    if not root.is_dir():
        raise ReportError(f"course root {root} is not a folder: pass --root <the folder that "
                          "holds submitted/ and autograded/>")
    course = Course(root, assignment)
    rows = grades_csv.read_rows(course.grades_csv(), assignment)  # a root may hold several
    graded_dir = root / AUTOGRADED
    with_folder = sorted(
        entry.name for entry in graded_dir.iterdir()
        if entry.is_dir() and (entry / assignment / RESULTS_JSON).is_file()
    ) if graded_dir.is_dir() else []
    results, unreadable = [], []
    for student in with_folder:
        result = load(course.autograded(student) / RESULTS_JSON)
        if result is None or result.assignment != assignment:
            unreadable.append(student)
        else:
            results.append(result)
    if not results:
        raise ReportError(
            f"nothing graded for {assignment} in {root} (no {GRADES_CSV} and no readable "
            f"autograded/<student>/{assignment}/{RESULTS_JSON}): run `python -m autograder "
            f"autograde {assignment} --root {root}` first")
    have = {result.student for result in results}
    missing = (set(course.students()) | set(rows) | set(unreadable)) - have
    return GradedCourse(course, sorted(results, key=lambda r: r.student), sorted(missing), rows)
