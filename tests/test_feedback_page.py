"""The student's feedback page reads like a product (issue 15): code spans are code, a message
is said once, the header says which course, cohort, assignment and grading day it is about,
carried-forward points say so, and nothing of the grading machine or of the TA's notes shows."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from autograder.grading.carried_forward import carried_note
from autograder.grading.evidence_parts import CARRIED_NOTE
from autograder.results import feedback_page
from autograder.results.result import (
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    is_carried_forward,
)
from autograder.spec import REPO, SPEC

TAGS = re.compile(r"<[^>]+>")


def visible_text(page: str) -> str:
    """The page's text as a reader sees it (no markup, no style sheet)."""
    body = page.split("<body>", 1)[-1]
    return html.unescape(TAGS.sub(" ", re.sub(r"<script.*?</script>", "", body, flags=re.S)))


def result(parts: list[PartResult] | None = None, **fields) -> SubmissionResult:
    """A graded result with every part at full points unless ``parts`` replaces some."""
    given = {part.part: part for part in parts or []}
    every = [given.get(name, PartResult(name, float(points), float(points)))
             for name, points in SPEC.part_points.items()]
    return SubmissionResult(**{"student": "s042", "assignment": SPEC.name,
                               "status": STATUS_GRADED, "parts": every, **fields})


def test_code_spans_are_code_elements_and_no_backtick_is_left():
    page = feedback_page.render(result([PartResult(
        "stable_softmax", 3, 13, messages=[
            "`stable_softmax` raised ValueError: shapes ``(2, 3)`` and `(3,)` differ",
        ], explanations=["Softmax runs over the keys: use `axis=-1`."])]))
    assert "<code>stable_softmax</code>" in page
    assert "<code>(2, 3)</code>" in page and "<code>(3,)</code>" in page
    assert "<code>axis=-1</code>" in page
    assert "`" not in visible_text(page)


def test_a_message_is_escaped_before_its_code_spans_are_made():
    page = feedback_page.render(result([PartResult(
        "attention_scores", 0, 7, messages=[
            "`attention_scores` raised ValueError: `<script>alert(1)</script>` & <b>bold</b>",
            "an unpaired ` backtick stays text <i>",
        ])]))
    assert "<script>alert" not in page and "<b>bold" not in page and "<i>" not in page
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in page
    assert "&amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "an unpaired ` backtick stays text &lt;i&gt;" in page


def test_a_message_repeated_in_every_part_is_shown_once():
    reason = f"no notebook was submitted (expected {SPEC.notebook})"
    parts = [PartResult(name, 0.0, float(points), messages=[reason])
             for name, points in SPEC.function_points.items()]
    page = feedback_page.render(result(parts, status=STATUS_UNGRADABLE, reason=reason))
    assert visible_text(page).count(reason) == 1


def test_one_message_for_several_evidence_sections_is_shown_once():
    body = ("the notebook could not compute this section (ValueError: boom); it scores 0 until "
            "the functions it needs work: fix them and re-run the notebook")
    evidence = PartResult("evidence", 5, 14, messages=[
        f"/masked_case: {body}", f"/parity: {body}", f"/intervention: {body}",
        "/hand_example/weights/0/1: another problem",
    ])
    text = visible_text(feedback_page.render(result([evidence])))
    assert text.count(body) == 1
    for section in ("/masked_case", "/parity", "/intervention", "/hand_example/weights/0/1"):
        assert section in text
    assert text.count("another problem") == 1


def test_a_note_that_is_one_parts_problem_is_shown_in_that_row_only():
    problem = "`stable_softmax` did not finish in time (stopped after 5 s: an endless loop?)"
    page = feedback_page.render(result([PartResult("stable_softmax", 0, 13, messages=[problem])],
                                       notes=[problem]))
    text = visible_text(page)
    assert text.count("did not finish in time") == 1
    row = page.split('id="part-stable_softmax"', 1)[1].split("</tr>", 1)[0]
    assert "did not finish in time" in row


def test_a_note_repeated_is_shown_once():
    note = "notebook cell 7 raised NameError: name 'x' is not defined"
    page = feedback_page.render(result(notes=[note, note]))
    assert visible_text(page).count(note) == 1


def test_the_header_names_course_cohort_assignment_and_grading_date():
    page = feedback_page.render(result(cohort="dl-2026-fall-a", graded_on="2026-12-16"),
                                course="dl-2026-fall-a-course")
    header = page.split("<header", 1)[1].split("</header>", 1)[0]
    for fact in ("dl-2026-fall-a-course", "dl-2026-fall-a", SPEC.name, "2026-12-16", "s042"):
        assert fact in header, fact


def test_the_course_is_the_roots_nbgrader_course_id(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'dl-2026-fall-b'\n")
    page_path = root / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result(), page_path)
    assert "dl-2026-fall-b" in page_path.read_text().split("</header>")[0]
    # A root without its own nbgrader config: the repository's course id (``make demo``).
    other = tmp_path / "other" / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result(), other)
    assert feedback_page.course_id(REPO) in other.read_text().split("</header>")[0]


@pytest.mark.parametrize("note", [
    carried_note(["stable_softmax"], "scaled_dot_product_attention"),
    carried_note(["attention_scores", "stable_softmax"], "self_attention"),
])
def test_a_carried_forward_check_is_shown_as_such(note):
    assert is_carried_forward(note)
    part = PartResult("scaled_dot_product_attention", 8, 8, messages=[note])
    page = feedback_page.render(result([part]))
    row = page.split('id="part-scaled_dot_product_attention"', 1)[1].split("</tr>", 1)[0]
    carried = re.search(r'<div class="carried">(.*?)</div>', row, re.S)
    assert carried, row
    assert "Carried forward" in carried.group(1)
    assert "graded on your own" in visible_text(carried.group(1)).lower()


def test_a_carried_forward_evidence_section_is_shown_as_such():
    message = f"/hand_example: {CARRIED_NOTE}"
    assert is_carried_forward(message)
    assert not is_carried_forward("/hand_example: the weights are not carried forward at all")
    evidence = PartResult("evidence", 14, 14, messages=[message])
    row = feedback_page.render(result([evidence])).split('id="part-evidence"', 1)[1]
    assert re.search(r'<div class="carried">.*?/hand_example', row.split("</tr>")[0], re.S)


def test_no_path_of_the_grading_machine_is_shown(tmp_path):
    root = tmp_path / "courses" / "dl"
    leaked = f"notebook cell 3 raised FileNotFoundError: No such file: '{root}/submitted/x.csv'"
    repo = f"`stable_softmax` raised OSError: cannot open {REPO}/solutions/attention.py"
    page_path = root / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result([PartResult("stable_softmax", 0, 13, messages=[repo])],
                              notes=[leaked]), page_path)
    page = page_path.read_text()
    assert str(root) not in page and str(REPO) not in page and str(tmp_path) not in page
    assert "x.csv" in page and "attention.py" in page  # the file is still named


def test_the_tas_notes_never_reach_the_page():
    page = feedback_page.render(result(ta_notes=["evidence: the inputs of student id 's007'"]))
    assert "s007" not in page


def test_the_page_has_no_script_and_no_external_resource():
    page = feedback_page.render(result())
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_saving_writes_the_rendered_page(tmp_path: Path):
    target = tmp_path / "feedback.html"
    feedback_page.save(result(), target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
