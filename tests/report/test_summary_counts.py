"""summary.md counts students, not parts: one student whose misconception was diagnosed in
two functions is one student (it was reported as two)."""

from __future__ import annotations

from autograder.base.course import RESULTS_JSON, Course
from autograder.report.summary import write_summary
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult, save
from tests.support.h2 import SPEC


def graded(student: str, diagnoses: dict[str, list[str]]) -> SubmissionResult:
    parts = [PartResult(part, points, points, diagnoses=diagnoses.get(part, []))
             for part, points in SPEC.part_points.items()]
    return SubmissionResult(student, SPEC.name, STATUS_GRADED, parts=parts)


def test_a_misconception_in_two_parts_counts_one_student(tmp_path):
    course = Course(tmp_path, SPEC.name)
    first, second = SPEC.function_parts[0], SPEC.function_parts[2]
    students = {
        "a-twice": {first: ["dtype_not_preserved"], second: ["dtype_not_preserved"]},
        "b-once": {second: ["mask_inverted"]},
        "c-clean": {},
    }
    for student, diagnoses in students.items():
        course.submitted(student).mkdir(parents=True)
        save(graded(student, diagnoses), course.autograded(student) / RESULTS_JSON)

    text = write_summary(course, SPEC).read_text()

    assert "**dtype_not_preserved** (1 student)" in text
    assert "**mask_inverted** (1 student)" in text
    assert "2 students" not in text


def test_summary_md_holds_back_what_the_report_holds_back(tmp_path):
    """A submission whose evidence waits for a person (its numbers are not what its code
    computes) is no misconception of the cohort: summary.md counts as the report does."""
    course = Course(tmp_path, SPEC.name)
    results = {
        "a-honest": graded("a-honest", {"stable_softmax": ["mask_inverted"]}),
        "b-tampered": graded("b-tampered", {"stable_softmax": ["all_masked_zeros"]}),
    }
    results["b-tampered"].part("evidence").needs_review = True
    for student, result in results.items():
        course.submitted(student).mkdir(parents=True)
        save(result, course.autograded(student) / RESULTS_JSON)

    text = write_summary(course, SPEC).read_text()

    assert "**mask_inverted** (1 student)" in text
    assert "all_masked_zeros" not in text
    assert "held back until a person has looked: 1 student (b-tampered)" in text
