"""The Canvas and Moodle grade files of a course root, written from its saved results.

``cohort export`` writes them; every command that changes a grade afterwards rewrites them
(``autograder.publish``), with the same settings: those are kept in the root's course.json
(``root_settings.remember_lms``) as plain data, so a command needs no cohorts.toml to refresh
them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.base.course import RESULTS_JSON, Course
from autograder.integrations.lms import canvas, moodle
from autograder.integrations.lms.canvas import CanvasSettings
from autograder.integrations.lms.grades import LeftOut, LmsGrade, split
from autograder.integrations.lms.moodle import MoodleSettings
from autograder.results.result import SubmissionResult, saved_results, unreadable

FILE_NAMES = (canvas.FILE_NAME, moodle.FILE_NAME)


@dataclass(frozen=True)
class LmsFiles:
    canvas: Path
    moodle: Path
    grades: list[LmsGrade]
    left_out: list[LeftOut]  # students with no grade to import into an LMS


def write_files(course: Course, canvas_settings: CanvasSettings,
                moodle_settings: MoodleSettings, points_possible: float,
                results: list[SubmissionResult] | None = None) -> LmsFiles:
    """Write both files at the course root from its saved results (the grades of record;
    ``results``: those results, when the caller has read them already)."""
    if results is None:
        results = saved_results(course)
    students = course.students()
    seen = {result.student for result in results}
    why = {student: unreadable(course.autograded(student) / RESULTS_JSON)
           for student in students if student not in seen}
    grades, left_out = split(results, students, {
        s: f"autograded/{s}/{course.assignment}/{RESULTS_JSON} is unreadable ({text})"
        for s, text in why.items() if text})
    return LmsFiles(
        canvas=canvas.write(course.root / canvas.FILE_NAME, grades, canvas_settings,
                            points_possible),
        moodle=moodle.write(course.root / moodle.FILE_NAME, grades, moodle_settings),
        grades=grades, left_out=left_out)


def settings_data(canvas_settings: CanvasSettings, moodle_settings: MoodleSettings) -> dict:
    """The settings as plain data, for course.json."""
    return {"canvas": asdict(canvas_settings), "moodle": asdict(moodle_settings)}


def settings_from(data: dict) -> tuple[CanvasSettings, MoodleSettings]:
    """``settings_data``'s inverse; ``ValueError`` (or ``TypeError``) for data it never wrote."""
    return CanvasSettings(**data["canvas"]), MoodleSettings(**data["moodle"])
