"""Every output after grading is written for the assignment it is given, not for H2 (fast:
results are made here, nothing is graded). The second bundle (``tests/bundles/vectors``)
has no evidence file: its report, grades.csv, feedback page, graded notebook, summary and
Gradescope results carry its own parts and points and nothing of an evidence file."""

from __future__ import annotations

import csv
import io
import json

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.grading.diagnoses import ENGINE_DIAGNOSES, MUTATES_INPUT
from autograder.integrations.gradescope.results import gradescope_results
from autograder.report import write_report
from autograder.report.summary import render_summary
from autograder.results import result as saved  # (its TestResult is not a pytest class)
from autograder.results.message import Message
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult, save
from autograder.views import feedback_page, graded_notebook, grades_csv
from tests.bundles import students


@pytest.fixture(scope="module")
def second():
    return students.assignment()


def graded(second, student: str, lose: float = 0.0, codes: tuple[str, ...] = ()
           ) -> SubmissionResult:
    """A graded result of the second bundle: ``lose`` points off its last part."""
    names = list(second.part_points)
    parts = [PartResult(name, points - (lose if name == names[-1] else 0.0), float(points),
                        diagnoses=list(codes) if name == names[-1] else [])
             for name, points in second.part_points.items()]
    tests = [saved.TestResult(f"{part.part} works", part.part, part.points, part.max_points,
                              "passed" if part.points == part.max_points else "failed",
                              [] if part.points == part.max_points
                              else [Message("`normalize` is off")])
             for part in parts]
    return SubmissionResult(student, second.name, STATUS_GRADED, parts=parts, tests=tests)


@pytest.fixture
def course(tmp_path, second) -> Course:
    course = Course(tmp_path / "course", second.name)
    students.add_students(course.root, {"v1": False, "v2": True, "v3": False})
    for student, lose, codes in (("v1", 0.0, ()), ("v2", 4.0, (MUTATES_INPUT,)),
                                 ("v3", 0.0, ())):
        save(graded(second, student, lose, codes), course.autograded(student) / RESULTS_JSON)
    return course


def test_the_report_has_its_parts_and_no_evidence_piece(course, second, tmp_path):
    files = write_report(course.root, second, out_dir=tmp_path / "report")
    names = {path.name for path in files.csv}
    assert "evidence_copies.csv" not in names and "scores.csv" in names
    with (tmp_path / "report" / "scores.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert [name for name in header if name in second.part_points] == list(second.part_points)
    html = files.html.read_text(encoding="utf-8")
    assert 'id="evidence-copies"' not in html and "evidence file" not in html
    with (tmp_path / "report" / "misconceptions.csv").open(newline="", encoding="utf-8") as f:
        (row,) = csv.DictReader(f)
    assert row["code"] == MUTATES_INPUT and row["wording"] == ENGINE_DIAGNOSES[MUTATES_INPUT]


def test_grades_csv_has_a_column_per_part_of_the_assignment(course, second):
    grades_csv.write([graded(second, "v1"), graded(second, "v2", 4.0)], course.grades_csv(),
                     second)
    rows = list(csv.DictReader(io.StringIO(course.grades_csv().read_text(encoding="utf-8"))))
    assert [row["total"] for row in rows] == [f"{second.total_points:g}",
                                             f"{second.total_points - 4:g}"]
    assert set(second.part_points) <= set(rows[0]) and "evidence" not in rows[0]


def test_the_feedback_page_and_the_graded_notebook_are_the_assignments(course, second):
    page = feedback_page.render(graded(second, "v2", 4.0), second)
    for part in second.part_points:
        assert f'id="part-{part}"' in page
    notebook = graded_notebook.build(graded(second, "v2", 4.0),
                                     course.submitted("v2") / second.notebook,
                                     assignment=second)
    checks = [cell["metadata"]["nbgrader"]["grade_id"] for cell in notebook["cells"]
              if cell["metadata"].get("nbgrader", {}).get("grade")]
    assert checks == [second.part(part).grade_cell for part in second.part_points]


def test_the_summary_and_gradescopes_results_are_the_assignments(course, second):
    results = [graded(second, "v1"), graded(second, "v2", 4.0, (MUTATES_INPUT,))]
    summary = render_summary(course, results, second)
    for part in second.part_points:
        assert f"| {part} |" in summary
    assert ENGINE_DIAGNOSES[MUTATES_INPUT] in summary
    data = gradescope_results(results[1], 1.0, second)
    assert data["max_score"] == second.total_points
    failed = [test for test in data["tests"] if test["status"] == "failed"]
    assert failed and all("`normalize`" in test["output"] for test in failed)
    json.dumps(data, allow_nan=False)
