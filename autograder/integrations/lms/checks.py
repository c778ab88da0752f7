"""What to tell the TA before an LMS import that would change a grade or match nobody.

Neither importer says so itself:

* Moodle's CSV import cuts a grade above the grade item's maximum down to it (the final
  grade is bounded by the item's range), with no message; Canvas keeps points above
  "Points Possible" as they are (extra credit). Either way the TA should know who.
* Canvas reads its ``ID`` column as its own numeric user id: an id that is not a number
  matches nobody.
* Moodle's import aborts the whole file at the first user it cannot find. With the
  assignment's grading worksheet as roster (``moodle_roster``), every student of the file
  is looked up in the column Moodle will match (``moodle_identifier``) before the import.

Each check is one line; the files are written all the same (they are correct: what they
would do in the LMS is the TA's to decide).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from autograder.integrations.lms import roster as moodle_roster
from autograder.integrations.lms.canvas import CanvasSettings
from autograder.integrations.lms.grades import LmsGrade
from autograder.integrations.lms.moodle import MoodleSettings


def _above(grades: Sequence[LmsGrade], maximum: float) -> list[str]:
    return [f"{g.student} ({g.points})" for g in grades if float(g.points) > maximum + 1e-9]


def canvas_warnings(grades: Sequence[LmsGrade], settings: CanvasSettings,
                    points_possible: float) -> list[str]:
    """Lines about canvas-grades.csv: ids Canvas cannot match, points above possible."""
    lines = []
    if settings.student_column == "ID":
        odd = [g.student for g in grades if not g.student.isdigit()]
        if odd:
            lines.append(
                f"canvas: canvas_student_id = \"ID\", but {len(odd)} student id(s) are not "
                f"numbers ({moodle_roster.shown(odd)}): Canvas reads ID as its own numeric user "
                "id and would match none of them; set canvas_student_id = \"SIS Login ID\" (or "
                "\"SIS User ID\") in cohorts.toml, the column that holds these ids")
    above = _above(grades, points_possible)
    if above:
        lines.append(f"canvas: {len(above)} grade(s) above the {points_possible:g} points "
                     f"possible, which Canvas imports as they are (extra credit): "
                     f"{moodle_roster.shown(above)}")
    return lines


def moodle_warnings(grades: Sequence[LmsGrade], settings: MoodleSettings,
                    points_possible: float, roster_path: Path | None) -> list[str]:
    """Lines about moodle-grades.csv: grades Moodle would cut to the grade item's maximum
    (the roster's "Maximum Grade", else the assignment's points), and, with a roster,
    students Moodle would not find by ``moodle_identifier``."""
    lines: list[str] = []
    roster = None
    if roster_path is not None:
        try:
            roster = moodle_roster.load(roster_path, settings.identifier)
        except moodle_roster.RosterError as error:
            lines.append(f"moodle: moodle-grades.csv could not be checked against the "
                         f"roster: {error}")
    maximum = roster.maximum if roster is not None and roster.maximum else points_possible
    where = (f"the grade item's Maximum Grade in {roster.path}" if roster is not None
             and roster.maximum else "the assignment's points")
    above = _above(grades, maximum)
    if above:
        lines.append(f"moodle: {len(above)} grade(s) above {maximum:g} ({where}), which "
                     f"Moodle's import cuts to {maximum:g} without a word: "
                     f"{moodle_roster.shown(above)}; raise the assignment's Maximum grade in "
                     "Moodle first, or enter these by hand")
    if maximum != points_possible:
        lines.append(f"moodle: the grade item is out of {maximum:g} ({where}) but the grades "
                     f"are points out of {points_possible:g}: set the assignment's Maximum "
                     f"grade in Moodle to {points_possible:g} before importing")
    if roster is not None and grades:
        known = roster.students()
        if not known:
            lines.append(f"moodle: the roster {roster.path} has no {roster.column} for any "
                         f"student, and moodle-grades.csv identifies students by it "
                         f"(moodle_identifier = {settings.identifier!r}): Moodle's import "
                         "would find nobody; set moodle_identifier to a field your students "
                         "have")
        else:
            unknown = [g.student for g in grades if g.student not in known]
            if unknown:
                lines.append(f"moodle: {len(unknown)} student(s) of moodle-grades.csv have no "
                             f"{roster.column} in the roster {roster.path} "
                             f"({moodle_roster.shown(unknown)}): Moodle's import stops at the "
                             "first user it cannot find and imports nothing; remove them or "
                             "download the grading worksheet again")
    return lines


def warnings(grades: Sequence[LmsGrade], canvas: CanvasSettings, moodle: MoodleSettings,
             points_possible: float, roster_path: Path | None = None) -> list[str]:
    """Every line for the TA, Canvas's then Moodle's."""
    return (canvas_warnings(grades, canvas, points_possible)
            + moodle_warnings(grades, moodle, points_possible, roster_path))
