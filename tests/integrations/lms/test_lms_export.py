"""The Canvas and Moodle grade files, read back the way those importers read them.

``read_canvas`` follows Canvas's gradebook importer (``GradebookImporter``): the header must
start ``Student``, ``ID``; ``SIS User ID`` must be followed by ``SIS Login ID``; the student
columns end with ``Section``; an assignment header is ``<title> (<assignment id>)``; a row
whose first cell says ``Points Possible`` describes the assignments; a student is found by
``ID``, else ``SIS User ID``, else ``SIS Login ID``. ``read_moodle`` follows Moodle's CSV
grade import: a header row, one column mapped to a user field, one to the grade item, ``''``
or ``'-'`` meaning "no grade" (it clears the grade), a "." decimal, and the whole import
aborted by an unknown user. Both files must be UTF-8 (strict) with no byte-order mark.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.integrations.cohorts.config import CohortConfigError, get_cohort
from autograder.integrations.lms import canvas, checks, moodle
from autograder.integrations.lms.grades import NOT_GRADED, split
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
)
from autograder.spec import REPO
from autograder.views import grades_csv
from tests.bundles import students
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC

ASSIGNMENT_HEADER = re.compile(r"^(?P<title>.*) \((?P<id>\d+)\)$")


# ------------------------------------------------------------------ the importers' readings


def _rows(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "a byte-order mark would become part of a header"
    return list(csv.reader(io.StringIO(raw.decode("utf-8"))))  # strict UTF-8


def read_canvas(path: Path, roster: dict[str, dict[str, str]]) -> dict:
    """What Canvas's import would do: {"assignment": (title, id), "points_possible": str,
    "grades": {canvas user: grade}}; ``roster`` maps a Canvas user to its ID / SIS ids."""
    header, *rows = _rows(path)
    assert header[0] == "Student" and header[1] == "ID", header
    assert header[2:5] == ["SIS User ID", "SIS Login ID", "Section"], header
    columns = header[5:]
    assert len(columns) == 1, columns  # no read-only total columns: one assignment
    title_and_id = ASSIGNMENT_HEADER.match(columns[0])
    assignment = (title_and_id["title"], title_and_id["id"]) if title_and_id else (columns[0], "")
    points_possible, grades = None, {}
    for row in rows:
        assert len(row) == len(header), row
        if "Points Possible" in row[0]:
            points_possible = row[5]
            continue
        by = {"ID": row[1], "SIS User ID": row[2], "SIS Login ID": row[3]}
        user = next((name for key in ("ID", "SIS User ID", "SIS Login ID") if by[key]
                     for name, ids in roster.items() if ids.get(key) == by[key]), None)
        assert user is not None, f"Canvas would not find {by} and would list a new student"
        assert user not in grades, f"{user} twice"
        grades[user] = row[5].strip()
    return {"assignment": assignment, "points_possible": points_possible, "grades": grades}


def read_moodle(path: Path, map_from: str, map_to: str, users: dict[str, dict[str, str]],
                grade_item: str) -> dict[str, float | None]:
    """What Moodle's import would store: {moodle user: final grade or None (cleared)}."""
    header, *rows = _rows(path)
    header = [cell.strip() for cell in header]
    key, grade_column = header.index(map_from), header.index(grade_item)
    assert len(header) == 2, header
    imported: dict[str, float | None] = {}
    for row in rows:
        value = row[key].strip()
        user = next((name for name, fields in users.items() if fields[map_to] == value), None)
        assert user is not None, f"Moodle would abort the whole import: no user {value!r}"
        assert user not in imported, f"{user} twice"
        grade = row[grade_column].strip()
        assert re.fullmatch(r"-?\d+(\.\d+)?|-?", grade), f"not a '.'-decimal number: {grade!r}"
        imported[user] = None if grade in ("", "-") else float(grade)
    return imported


# ------------------------------------------------------------------ results as graded


def result(student: str, status: str, points: list[float], reason: str = "") -> SubmissionResult:
    parts = [PartResult(name, p, float(SPEC.part_points[name]))
             for name, p in zip(SPEC.part_points, points, strict=False)]
    return SubmissionResult(student=student, assignment=SPEC.name, status=status, reason=reason,
                            parts=parts)


@pytest.fixture
def results() -> list[SubmissionResult]:
    full = [float(points) for points in SPEC.part_points.values()]
    return [
        result("s001", STATUS_GRADED, full),
        result("s002", STATUS_GRADED, [7, 12.5, 1.25]),  # fractions: 20.75
        result("s003", STATUS_UNGRADABLE, [0, 0, 0, 2], f"{SPEC.notebook} is not a valid notebook"),
        result("s004", STATUS_ERROR, [], "a hidden check crashed"),
        result("s005", STATUS_GRADED, [0.0]),  # a real zero is imported as 0
    ]


def totals(results: list[SubmissionResult]) -> dict[str, str]:
    """grades.csv's total per student (written and read back as grades.csv is)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=grades_csv.header(SPEC), restval="")
    writer.writeheader()
    for r in results:
        writer.writerow(grades_csv.row(r))
    return {row["student"]: row["total"] for row in csv.DictReader(io.StringIO(buffer.getvalue()))}


def roster_for(students: list[str], column: str) -> dict[str, dict[str, str]]:
    """Canvas users with made-up Canvas ids, our student id in ``column``."""
    return {f"user-{s}": {"ID": str(1000 + i), column: s} for i, s in enumerate(students)}


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("column", canvas.ID_COLUMNS)
def test_canvas_reads_the_same_numbers_as_grades_csv(tmp_path, results, column):
    grades, left_out = split(results)
    settings = canvas.CanvasSettings(SPEC.name, "48213", column)
    path = canvas.write(tmp_path / canvas.FILE_NAME, grades, settings, SPEC.total_points)
    students = [r.student for r in results]
    roster = roster_for(students, column)
    if column == "ID":  # our id is Canvas's own user id then
        roster = {f"user-{s}": {"ID": s} for s in students}
    read = read_canvas(path, roster)
    assert read["assignment"] == (SPEC.name, "48213")
    assert read["points_possible"] == "100" == f"{SPEC.total_points:g}"
    expected = totals(results)
    assert read["grades"] == {f"user-{s}": expected[s] for s in ("s001", "s002", "s005")}
    assert read["grades"]["user-s002"] == "20.75" and read["grades"]["user-s005"] == "0"
    # No row at all for a student with no grade: not a 0, not a blank.
    assert [(s.student, s.status) for s in left_out] == [("s003", STATUS_UNGRADABLE),
                                                         ("s004", STATUS_ERROR)]


def test_canvas_without_an_assignment_id_matches_by_title(tmp_path, results):
    grades, _ = split(results)
    settings = canvas.CanvasSettings("H2: Attention – Fall", "", "SIS Login ID")
    path = canvas.write(tmp_path / canvas.FILE_NAME, grades, settings, SPEC.total_points)
    read = read_canvas(path, roster_for(["s001", "s002", "s005"], "SIS Login ID"))
    assert read["assignment"] == ("H2: Attention – Fall", "")  # UTF-8, as written


@pytest.mark.parametrize(("identifier", "field"), [("username", "username"),
                                                  ("idnumber", "idnumber"),
                                                  ("email", "email")])
def test_moodle_reads_the_same_numbers_as_grades_csv(tmp_path, results, identifier, field):
    grades, _ = split(results)
    settings = moodle.MoodleSettings("Übung H2 (attention)", identifier)
    path = moodle.write(tmp_path / moodle.FILE_NAME, grades, settings)
    users = {f"u{i}": {"username": "x", "idnumber": "x", "email": "x", field: r.student}
             for i, r in enumerate(results)}
    imported = read_moodle(path, identifier, field, users, "Übung H2 (attention)")
    expected = totals(results)
    by_student = {users[user][field]: grade for user, grade in imported.items()}
    assert by_student == {s: float(expected[s]) for s in ("s001", "s002", "s005")}
    assert None not in by_student.values()  # nobody's grade is cleared


def test_students_without_a_result_are_listed_not_exported(results):
    grades, left_out = split(results, ["s001", "s002", "s003", "s004", "s005", "s006"])
    assert [g.student for g in grades] == ["s001", "s002", "s005"]
    assert [(s.student, s.status) for s in left_out][-1] == ("s006", NOT_GRADED)


def write_config(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "cohorts.toml"
    path.write_text(f'[defaults]\ncourses_root = "{tmp_path}"\n\n[cohorts.fall-a]\n{extra}\n')
    return path


def test_the_columns_come_from_cohorts_toml(tmp_path):
    cohort = get_cohort("fall-a", write_config(tmp_path, (
        'canvas_assignment_id = 48213\ncanvas_student_id = "SIS User ID"\n'
        'moodle_identifier = "idnumber"\nmoodle_grade_item = "H2"')))
    assert cohort.canvas.column == f"{SPEC.name} (48213)"
    assert cohort.canvas.student_column == "SIS User ID"
    assert (cohort.moodle.identifier, cohort.moodle.grade_item) == ("idnumber", "H2")
    default = get_cohort("fall-a", write_config(tmp_path, ""))
    assert default.canvas.column == SPEC.name and default.moodle.identifier == "username"


@pytest.mark.parametrize(("extra", "complaint"), [
    ('canvas_assignment_id = "h2"', "canvas_assignment_id 'h2' is not a number"),
    ('canvas_student_id = "Login"', "canvas_student_id 'Login' is not one of"),
    ('moodle_identifier = "name"', "moodle_identifier 'name' is not one of"),
])
def test_a_wrong_lms_setting_is_one_line(tmp_path, extra, complaint):
    config = write_config(tmp_path, extra)
    with pytest.raises(CohortConfigError, match=re.escape(complaint)):
        get_cohort("fall-a", config)
    done = subprocess.run([sys.executable, "-m", "autograder", "cohort", "--config", str(config),
                           "export", "fall-a"], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=False)
    assert complaint in one_line_error(done)


def test_a_cohort_of_another_assignment_names_its_columns_and_points_after_it(tmp_path):
    second = students.assignment()
    config = write_config(tmp_path, f'assignment = "{second.name}"\n'
                                    f'assignments = "{students.BUNDLES}"')
    cohort = get_cohort("fall-a", config)
    assert cohort.bundle() is second
    assert cohort.canvas.column == second.name == cohort.moodle.grade_item
    parts = [PartResult(name, points - 1.5 * (i == 0), float(points))
             for i, (name, points) in enumerate(second.part_points.items())]
    graded = SubmissionResult("v1", second.name, STATUS_GRADED, parts=parts)
    grades_csv.write([graded], tmp_path / "grades.csv", second)
    header, row = list(csv.reader(io.StringIO((tmp_path / "grades.csv").read_text())))
    assert header[5:5 + len(second.part_points)] == list(second.part_points)
    grades, _ = split([graded])
    canvas_file = canvas.write(tmp_path / canvas.FILE_NAME, grades, cohort.canvas,
                               second.total_points)
    written = list(csv.reader(io.StringIO(canvas_file.read_text(encoding="utf-8"))))
    assert written[0][-1] == second.name and written[1][-1] == f"{second.total_points:g}"
    assert written[2][-1] == row[header.index("total")] == f"{second.total_points - 1.5:g}"


def test_the_repository_cohorts_toml_has_valid_lms_settings():
    cohort = get_cohort("dl-2026-fall-a")
    assert cohort.canvas.student_column in canvas.ID_COLUMNS
    assert cohort.moodle.identifier in moodle.IDENTIFIERS


# ------------------------------------------------------------------ before the TA imports


def graded(points: dict[str, str]) -> list:
    from autograder.integrations.lms.grades import LmsGrade

    return [LmsGrade(student, value) for student, value in points.items()]


def test_canvas_ids_that_are_not_numbers_are_one_line_naming_the_column_to_use():
    """Canvas reads ID as its own numeric user id: s001 would match nobody."""
    settings = canvas.CanvasSettings(SPEC.name, "48213", "ID")
    [line] = checks.canvas_warnings(graded({"s001": "80", "40213": "75"}), settings, 100)
    assert line.startswith('canvas: canvas_student_id = "ID", but 1 student id(s) are not '
                           "numbers (s001)"), line
    assert 'set canvas_student_id = "SIS Login ID" (or "SIS User ID")' in line
    assert checks.canvas_warnings(graded({"40213": "75", "40214": "100"}), settings, 100) == []
    sis = canvas.CanvasSettings(SPEC.name, "48213", "SIS Login ID")
    assert checks.canvas_warnings(graded({"s001": "80"}), sis, 100) == []


def test_grades_above_the_maximum_are_named_for_canvas_and_moodle():
    """Points above the maximum, however they came (a bonus, a grade item worth fewer
    points): Moodle would cut them without a word, Canvas keep them."""
    grades = graded({"s001": "100", "s002": "104.5", "s003": "110"})
    settings = moodle.MoodleSettings(SPEC.name)
    [canvas_line] = checks.canvas_warnings(grades, canvas.CanvasSettings(SPEC.name), 100)
    assert canvas_line == ("canvas: 2 grade(s) above the 100 points possible, which Canvas "
                           "imports as they are (extra credit): s002 (104.5), s003 (110)")
    [moodle_line] = checks.moodle_warnings(grades, settings, 100, None)
    assert moodle_line.startswith("moodle: 2 grade(s) above 100 (the assignment's points), "
                                  "which Moodle's import cuts to 100 without a word: "
                                  "s002 (104.5), s003 (110)"), moodle_line
    assert checks.moodle_warnings(graded({"s001": "100"}), settings, 100, None) == []


def roster_file(path: Path, rows: list[tuple[str, str, str]], identity: tuple[str, ...],
                maximum: str = "100.00") -> Path:
    """A grading worksheet: (participant, full name, value of each identity column)."""
    lines = [",".join(["Identifier", "Full name", *identity, "Status", "Grade",
                       "Maximum Grade"])]
    lines += [",".join([f"Participant {p}", name, *values, "Submitted for grading", "", maximum])
              for p, name, *values in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_grade_item_out_of_other_points_than_the_assignment_is_said(tmp_path):
    """The worksheet's Maximum Grade is the grade item's: out of 20, a 100 becomes 20."""
    roster = roster_file(tmp_path / "w.csv", [("1", "Ann", "s001"), ("2", "Bo", "s002")],
                         ("Username",), maximum="20.00")
    lines = checks.moodle_warnings(graded({"s001": "100", "s002": "15"}),
                                   moodle.MoodleSettings(SPEC.name), 100, roster)
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"moodle: 1 grade(s) above 20 (the grade item's Maximum Grade in "
                               f"{roster}), which Moodle's import cuts to 20 without a word: "
                               "s001 (100)"), lines
    assert lines[1] == (f"moodle: the grade item is out of 20 (the grade item's Maximum Grade in "
                        f"{roster}) but the grades are points out of 100: set the assignment's "
                        "Maximum grade in Moodle to 100 before importing")


@pytest.mark.parametrize(("identifier", "identity", "values", "complaint"), [
    # mapped to useridnumber, but the worksheet has no ID number column
    ("idnumber", ("Email address",), [("a@x",), ("b@x",)], "has no 'ID number' column"),
    # the column is there, and empty for everybody
    ("idnumber", ("ID number",), [("",), ("",)], "has no ID number for any student"),
    # a student of the file Moodle does not know: the whole import would stop
    ("username", ("Username",), [("s001",), ("s009",)],
     "1 student(s) of moodle-grades.csv have no Username in the roster"),
])
def test_an_export_moodle_would_not_match_is_one_line(tmp_path, identifier, identity, values,
                                                      complaint):
    roster = roster_file(tmp_path / "w.csv", [("1", "Ann", *values[0]), ("2", "Bo", *values[1])],
                         identity)
    [line] = checks.moodle_warnings(graded({"s001": "80", "s002": "70"}),
                                    moodle.MoodleSettings(SPEC.name, identifier), 100, roster)
    assert line.startswith("moodle: ") and complaint in line, line
    assert "\n" not in line


def test_export_prints_the_warnings_with_the_files(tmp_path):
    from autograder.integrations.cohorts.command import lms_lines
    from autograder.integrations.cohorts.workflow import ExportFiles

    cohort = get_cohort("fall-a", write_config(tmp_path, 'canvas_student_id = "ID"'))
    grades = graded({"s001": "80"})
    files = ExportFiles(grades=tmp_path / "g", nbgrader=tmp_path / "n", summary=tmp_path / "s",
                        canvas=tmp_path / "c", moodle=tmp_path / "m", left_out=[], to_review=[],
                        warnings=checks.warnings(grades, cohort.canvas, cohort.moodle, 100))
    lines = lms_lines(cohort, files)
    assert [line for line in lines if line.startswith("warning: ")] == [
        f"warning: {line}" for line in checks.canvas_warnings(grades, cohort.canvas, 100)]
    assert len(files.warnings) == 1
