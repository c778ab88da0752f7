"""The student's feedback page reads like a product (issues 15 and 26): the likely cause first,
then the failed checks with their points, repeats said once; Markdown rendered (escaped first);
evidence sections with their worth; carried-forward points said only where points were carried;
no total for a notebook that has none; the header says which course, cohort, assignment and
grading day it is about; nothing of the grading machine or of the TA's notes shows."""

from __future__ import annotations

import html
import re
import tomllib
from pathlib import Path

import pytest

from autograder.bundles.h2_attention.evidence_parts import CARRIED_NOTE
from autograder.grading.carried_forward import carried_note
from autograder.results import migrate, root_settings
from autograder.results import result as saved  # (its TestResult is not a pytest class)
from autograder.results.message import Message
from autograder.results.result import (
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
)
from autograder.spec import REPO
from autograder.views import feedback_page
from tests.bundles import students as vectors
from tests.support.h2 import SPEC

TAGS = re.compile(r"<[^>]+>")


def visible_text(page: str) -> str:
    """The page's text as a reader sees it (no markup, no style sheet)."""
    body = page.split("<body>", 1)[-1]
    return html.unescape(TAGS.sub(" ", re.sub(r"<script.*?</script>", "", body, flags=re.S)))


def said(text: str | Message) -> Message:
    """A message written as its one line ("/pointer: carried forward: ..."), as a Message."""
    return text if isinstance(text, Message) else Message(**migrate.message(text))


def result(parts: list[PartResult] | None = None, **fields) -> SubmissionResult:
    """A graded result with every part at full points unless ``parts`` replaces some (their
    messages and the notes may be given as one-line texts)."""
    for part in parts or []:
        part.messages = [said(m) for m in part.messages]
    for kind in ("notes", "ta_notes"):
        fields[kind] = [m if isinstance(m, Message) else Message(m) for m in fields.get(kind, [])]
    given = {part.part: part for part in parts or []}
    every = [given.get(name, PartResult(name, float(points), float(points)))
             for name, points in SPEC.part_points.items()]
    return SubmissionResult(**{"student": "s042", "assignment": SPEC.name,
                               "status": STATUS_GRADED, "parts": every, **fields})


def test_code_spans_are_code_elements_and_no_backtick_is_left():
    page = feedback_page.render(result([PartResult(
        "stable_softmax", 3, 13, messages=[
            "`stable_softmax` raised ValueError: shapes ``(2, 3)`` and `(3,)` differ",
        ], explanations=["Softmax runs over the keys: use `axis=-1`."])]), SPEC)
    assert "<code>stable_softmax</code>" in page
    assert "<code>(2, 3)</code>" in page and "<code>(3,)</code>" in page
    assert "<code>axis=-1</code>" in page
    assert "`" not in visible_text(page)


def test_a_message_is_escaped_before_its_code_spans_are_made():
    page = feedback_page.render(result([PartResult(
        "attention_scores", 0, 7, messages=[
            "`attention_scores` raised ValueError: `<script>alert(1)</script>` & <b>bold</b>",
            "an unpaired ` backtick stays text <i>",
        ])]), SPEC)
    assert "<script>alert" not in page and "<b>bold" not in page and "<i>" not in page
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in page
    assert "&amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "an unpaired ` backtick stays text &lt;i&gt;" in page


def test_a_message_repeated_in_every_part_is_shown_once():
    reason = f"no notebook was submitted (expected {SPEC.notebook})"
    parts = [PartResult(name, 0.0, float(points), messages=[reason])
             for name, points in SPEC.function_points.items()]
    page = feedback_page.render(result(parts, status=STATUS_UNGRADABLE, reason=reason), SPEC)
    assert visible_text(page).count(reason) == 1


def test_one_message_for_several_evidence_sections_is_shown_once():
    body = ("the notebook could not compute this section (ValueError: boom); it scores 0 until "
            "the functions it needs work: fix them and re-run the notebook")
    evidence = PartResult("evidence", 5, 14, messages=[
        f"/masked_case: {body}", f"/parity: {body}", f"/intervention: {body}",
        "/hand_example/weights/0/1: another problem",
    ])
    text = visible_text(feedback_page.render(result([evidence]), SPEC))
    assert text.count(body) == 1
    for section in ("masked_case", "parity", "intervention", "/hand_example/weights/0/1"):
        assert section in text
    assert text.count("another problem") == 1


def test_a_note_that_is_one_parts_problem_is_shown_in_that_row_only():
    problem = "`stable_softmax` did not finish in time (stopped after 5 s: an endless loop?)"
    page = feedback_page.render(result([PartResult("stable_softmax", 0, 13, messages=[problem])],
                                       notes=[problem]), SPEC)
    text = visible_text(page)
    assert text.count("did not finish in time") == 1
    row = page.split('id="part-stable_softmax"', 1)[1].split("</tr>", 1)[0]
    assert "did not finish in time" in row


def test_a_note_repeated_is_shown_once():
    note = "notebook cell 7 raised NameError: name 'x' is not defined"
    page = feedback_page.render(result(notes=[note, note]), SPEC)
    assert visible_text(page).count(note) == 1


def test_the_header_names_course_cohort_assignment_and_grading_date():
    page = feedback_page.render(result(cohort="dl-2026-fall-a", graded_on="2026-12-16"), SPEC,
                                course="dl-2026-fall-a-course")
    header = page.split("<header", 1)[1].split("</header>", 1)[0]
    for fact in ("dl-2026-fall-a-course", "dl-2026-fall-a", SPEC.name, "2026-12-16", "s042"):
        assert fact in header, fact


def course_on(page: Path) -> str:
    """What the page's header says the course is."""
    header = page.read_text().split("</header>")[0]
    return re.search(r"<dt>Course</dt><dd>(.*?)</dd>", header)[1]


def test_the_course_is_the_roots_nbgrader_course_id(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'dl-2026-fall-b'\n")
    page_path = root / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result(), page_path, SPEC)
    assert course_on(page_path) == "dl-2026-fall-b"
    # A name the TA gave (`autograde --course-name`, remembered in course.json) comes first.
    root_settings.remember(root, SPEC.name, course="Deep Learning, fall 2026")
    feedback_page.save(result(), page_path, SPEC)
    assert course_on(page_path) == "Deep Learning, fall 2026"


def test_without_a_course_id_no_course_is_named_never_the_graders(tmp_path):
    """Issue 39: a root without a course id of its own read "Course: <the grader's project
    name>", the first assignment's, whatever the assignment. Now it names none."""
    other = tmp_path / "fall-2026" / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result(), other, SPEC)
    assert course_on(other) == "—"
    (tmp_path / "fall-2026" / "nbgrader_config.py").write_text("c = get_config()\n")  # no id
    feedback_page.save(result(), other, SPEC)
    assert course_on(other) == "—"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
    assert project not in other.read_text()
    # Outside a course root (Gradescope's results folder): no course is named.
    loose = tmp_path / "results" / "feedback.html"
    feedback_page.save(result(), loose, SPEC)
    assert course_on(loose) == "—"


HIDDEN_INPUTS_WORDS = "The hidden checks call your functions on their own inputs"


def test_what_the_hidden_inputs_are_like_comes_from_the_bundle():
    """Issue 39: every assignment's page said H2's "(batches, large scores, masks, other
    shapes)". The words are the spec's ``hidden_inputs``; a bundle that says nothing gets a
    sentence that names no input."""
    assert SPEC.hidden_inputs == "batches, large scores, masks, other shapes"
    footer = visible_text(feedback_page.render(result(), SPEC)).split(HIDDEN_INPUTS_WORDS)[1]
    assert " ".join(footer.split()).startswith(
        "(batches, large scores, masks, other shapes); the inputs themselves are not shown.")
    other = vectors.assignment()
    assert other.hidden_inputs == ""
    page = feedback_page.render(SubmissionResult(
        "s042", other.name, STATUS_GRADED,
        parts=[PartResult(name, float(p), float(p)) for name, p in other.part_points.items()]),
        other)
    footer = visible_text(page).split(HIDDEN_INPUTS_WORDS)[1]
    assert " ".join(footer.split()).startswith("; the inputs themselves are not shown.")
    assert "masks" not in visible_text(page) and "batches" not in visible_text(page)


def row_of(page: str, part: str) -> str:
    """The HTML of one part's row (up to the next part's row)."""
    return page.split(f'id="part-{part}"', 1)[1].split('<tr id="part-', 1)[0]


def check(part: str, name: str, lost: float, output: str | Message = "",
          max_score: float = 1.0, explanations: tuple[str, ...] = ()) -> saved.TestResult:
    """A hidden check of ``part`` that lost ``lost`` of its ``max_score`` points."""
    status = "failed" if lost else "passed"
    return saved.TestResult(name, part, max_score - lost, max_score, status,
                            [said(output)] if output else [], list(explanations))


def carried(blocks: list[str], part: str) -> Message:
    return Message(carried_note(blocks, part), carried=True, carried_from=blocks)


@pytest.mark.parametrize("note", [
    carried(["stable_softmax"], "scaled_dot_product_attention"),
    carried(["attention_scores", "stable_softmax"], "self_attention"),
])
def test_a_carried_forward_check_is_shown_as_such_with_its_points(note):
    part = PartResult("scaled_dot_product_attention", 8, 8, messages=[note])
    tests = [check(part.part, "hand example", 0, note, 3), check(part.part, "float32", 0, "", 5)]
    page = feedback_page.render(result([part], tests=tests), SPEC)
    carried = re.search(r'<div class="carried">(.*?)</div>', row_of(page, part.part), re.S)
    assert carried, row_of(page, part.part)
    assert "Carried forward" in carried.group(1)
    said = visible_text(carried.group(1))
    assert "3 points of this part stand: the earlier bug is charged once, where it lives" in said, said


def test_no_carried_forward_box_where_no_points_were_carried():
    """A full-score part whose checks all passed on their own shows no carried-forward box,
    even when a message says "carried forward" (issue 26: green boxes on full parts)."""
    note = carried(["stable_softmax"], "scaled_dot_product_attention")
    on_its_own = PartResult("scaled_dot_product_attention", 8, 8, messages=[note])
    tests = [check(on_its_own.part, "hand example", 0, "", 3),
             check(on_its_own.part, "float32", 0, "", 5)]
    page = feedback_page.render(result([on_its_own], tests=tests), SPEC)
    assert 'class="carried"' not in page
    assert "All checks passed." in visible_text(row_of(page, on_its_own.part))
    # Without its checks (no way to say what was carried) a full part says nothing either.
    page = feedback_page.render(result([on_its_own]), SPEC)
    assert 'class="carried"' not in page


def test_a_carried_forward_evidence_section_is_shown_as_such():
    message = Message(CARRIED_NOTE, pointer="/hand_example", carried=True)
    evidence = PartResult("evidence", 14, 14, messages=[message])
    row = row_of(feedback_page.render(result([evidence]), SPEC), "evidence")
    carried = re.search(r'<div class="carried">(.*?)</div>', row, re.S)
    assert carried and "hand_example" in carried.group(1)
    worth = SPEC.evidence_sections["hand_example"]
    assert feedback_page.points(worth) in visible_text(carried.group(1))


def test_the_likely_cause_comes_first_then_the_failed_checks_with_their_points():
    part = "stable_softmax"
    cause = "The weights are normalised over the *wrong* axis: use `axis=-1`."
    tests = [check(part, "Rows sum to one", 1, "Rows do not sum to one.", 1, (cause,)),
             check(part, "Large scores", 2, "NaN in the weights.", 2, (cause,)),
             check(part, "float32 stays float32", 0)]
    page = feedback_page.render(result([PartResult(part, 10, 13, explanations=[cause])],
                                       tests=tests), SPEC)
    row = row_of(page, part)
    text = visible_text(row)
    assert text.index("Likely cause") < text.index("Rows do not sum to one")
    assert text.count("normalised over the") == 1  # the cause is not repeated per check
    assert re.search(r"Rows sum to one\s+−1 point\b", text), text
    assert re.search(r"Large scores\s+−2 points", text), text
    assert "float32 stays float32" not in text  # a passed check is not a problem


def test_reasons_that_differ_only_in_numbers_are_said_once_with_the_combined_points():
    part = "stable_softmax"
    tests = [check(part, f"check {i}", points, f"Wrong values at ({i}, 3) (expected 0.{i}1, "
                   f"got 0.9{i})", points) for i, points in ((1, 1), (2, 2), (3, 1))]
    tests.append(check(part, "check 4", 1, "NaN in the weights at position (0, 0)."))
    page = feedback_page.render(result([PartResult(part, 8, 13)], tests=tests), SPEC)
    text = visible_text(row_of(page, part))
    assert text.count("Wrong values") == 1
    assert "(expected 0.11, got 0.91)" in text  # the first check's numbers, as the example
    assert re.search(r"3 checks failed this way:\s+−4 points", text), text
    assert text.count("NaN in the weights") == 1 and "check 4" in text
    for i in (1, 2, 3):
        assert f"check {i}" in text


def test_markdown_is_rendered_and_never_shown_raw():
    part = "scaled_dot_product_attention"
    cause = "With batch dimensions, `K.T` reverses *all* axes: use **only** the last two."
    tests = [check(part, "An explicit `scale` is used", 1, "`scaled_dot_product_attention` "
                   "returned the *wrong* shape")]
    page = feedback_page.render(result([PartResult(part, 7, 8, explanations=[cause])],
                                       tests=tests), SPEC)
    row = row_of(page, part)
    assert "<em>all</em>" in row and "<strong>only</strong>" in row and "<em>wrong</em>" in row
    assert "<code>K.T</code>" in row and "<code>scale</code>" in row
    text = visible_text(row)
    assert "`" not in text and "*" not in text


@pytest.mark.parametrize(("text", "html_", "raw"), [
    ("*<b>x</b>*", "<em>&lt;b&gt;x&lt;/b&gt;</em>", "<b>"),
    ("`*<i>*`", "<code>*&lt;i&gt;*</code>", "<i>"),
    ("[link](javascript:alert(1)) ![i](x.png) <https://a.b>", "[link](javascript:alert(1))",
     "<a"),
    ("no attribute '__len__' in a_b_c", "no attribute &#39;__len__&#39; in a_b_c", "<strong>"),
    ("2 * 3 * 4 and a*b*c", "2 * 3 * 4 and a*b*c", "<em>"),
    ("# not a heading\n- not a list", "# not a heading", "<h1>"),
])
def test_student_text_is_escaped_before_the_small_markdown_subset(text, html_, raw):
    rendered = str(feedback_page.code_spans(text))
    assert html_ in rendered, rendered
    assert raw not in rendered


def test_evidence_sections_show_their_worth_from_the_spec():
    sections = SPEC.evidence_sections
    failing = "masked_case"
    worth = sections[failing]
    evidence = PartResult("evidence", SPEC.part_points["evidence"] - worth,
                          SPEC.part_points["evidence"],
                          messages=[f"/{failing}/weights/0/0: the masked weights are wrong"])
    row = row_of(feedback_page.render(result([evidence]), SPEC), "evidence")
    for name, points in sections.items():
        cell = row.split(f'id="section-{name}"', 1)[1].split("</tr>", 1)[0]
        shown = visible_text(cell)
        assert name in shown
        expected = f"0 / {points:g}" if name == failing else f"{points:g} / {points:g}"
        assert expected in shown, (name, shown)
    assert "/masked_case/weights/0/0" in visible_text(row)


def test_a_paragraph_repeated_for_several_sections_is_shown_once():
    advice = ("The numbers in the evidence file must be the ones your functions compute. "
              "Re-run the whole notebook and submit it with the file it writes.")
    sections = {"hand_example": "attention_scores", "masked_case": "stable_softmax",
                "parity": "torch_sdpa", "intervention": "value_intervention"}
    messages = [f"/{name}: the {name} section could not be checked because the grader's run "
                f"of your `{function}` did not finish in time. {advice}"
                for name, function in sections.items()]
    evidence = PartResult("evidence", 2, 14, messages=messages, needs_review=True)
    text = visible_text(row_of(feedback_page.render(result([evidence]), SPEC), "evidence"))
    assert text.count("Re-run the whole notebook") == 1, text
    for name, function in sections.items():
        assert f"the {name} section could not be checked" in text and function in text


def test_texts_that_differ_only_in_their_sections_name_are_said_once():
    """The ungradable demo student read one sentence four times, once per section."""
    names = {"hand_example": "the hand example", "masked_case": "the masked case",
             "parity": "the parity check", "intervention": "the intervention"}
    messages = [f"/{name}: no notebook of yours could be run, so the grader could not check "
                f"that your functions produce the numbers of {words}: submit the notebook "
                "that wrote the file." for name, words in names.items()]
    evidence = PartResult("evidence", 2, 14, messages=messages)
    row = row_of(feedback_page.render(result([evidence]), SPEC), "evidence")
    text = visible_text(row)
    assert text.count("no notebook of yours could be run") == 1, text
    assert re.search(r"The same holds for\s+masked_case\s*,\s+parity\s+and\s+intervention",
                     text), text
    for name, points in SPEC.evidence_sections.items():  # each still shows what it lost
        cell = visible_text(row.split(f'id="section-{name}"', 1)[1].split("</tr>", 1)[0])
        assert (f"0 / {points:g}" if name in names else f"{points:g} / {points:g}") in cell


def test_an_ungradable_notebook_shows_no_total_it_does_not_have():
    reason = f"{SPEC.notebook} is not a valid notebook: its JSON is broken"
    parts = [PartResult(name, 0.0, float(points), messages=[reason])
             for name, points in SPEC.function_points.items()]
    graded = result(parts, status=STATUS_UNGRADABLE, reason=reason)
    assert graded.score > 0  # the evidence parts were graded without the notebook
    page = feedback_page.render(graded, SPEC)
    header = visible_text(page.split("</header>", 1)[0])
    assert f"{graded.score:g} / {graded.max_score:g}" not in header
    assert "No total" in header
    for name in SPEC.function_points:
        assert "— /" in visible_text(row_of(page, name)) and "0 /" not in row_of(page, name)
    assert visible_text(page).count("is not a valid notebook") == 1


def test_a_note_about_one_function_is_said_in_its_row():
    part = "value_intervention"
    tests = [check(part, "intervention", 1, f"`{part}` did not finish in time.")]
    note = f"`{part}` was stopped at once: it calls `stable_softmax`, which ran out of time"
    page = feedback_page.render(result([PartResult(part, 6, 7)], tests=tests,
                                       notes=[Message(note, part=part)]), SPEC)
    assert "was stopped at once" in visible_text(row_of(page, part))
    assert visible_text(page).count("was stopped at once") == 1


def test_no_path_of_the_grading_machine_is_shown(tmp_path):
    root = tmp_path / "courses" / "dl"
    leaked = f"notebook cell 3 raised FileNotFoundError: No such file: '{root}/submitted/x.csv'"
    repo = f"`stable_softmax` raised OSError: cannot open {REPO}/solutions/attention.py"
    page_path = root / "autograded" / "s042" / SPEC.name / "feedback.html"
    feedback_page.save(result([PartResult("stable_softmax", 0, 13, messages=[repo])],
                              notes=[leaked]), page_path, SPEC)
    page = page_path.read_text()
    assert str(root) not in page and str(REPO) not in page and str(tmp_path) not in page
    assert "x.csv" in page and "attention.py" in page  # the file is still named


def test_the_tas_notes_never_reach_the_page():
    page = feedback_page.render(result(ta_notes=[Message("evidence: the inputs of student id 's007'")]), SPEC)
    assert "s007" not in page


def test_the_page_has_no_script_and_no_external_resource():
    page = feedback_page.render(result(), SPEC)
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_saving_writes_the_rendered_page(tmp_path: Path):
    target = tmp_path / "feedback.html"
    feedback_page.save(result(), target, SPEC)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_every_distinct_carried_forward_note_of_the_evidence_is_shown():
    """The wrong-axis softmax: the hand example carries the generic note, the other three
    sections each say where their function returned NaN. Each note is shown, once, with the
    sections it is for (issue 26: only the first used to reach the page)."""
    nan_note = ("carried forward: your function returned NaN here "
                "(`scaled_dot_product_attention`, in the masked case's weights); {rest}")
    rest = CARRIED_NOTE
    raised = ("carried forward: your `stable_softmax` raised ValueError here, in {title} (the "
              "grader ran your functions again and got the same error); `stable_softmax` already "
              "lost points for this bug in its own part, so this section keeps its points: the "
              "bug costs points once, there")
    messages = [f"/hand_example: carried forward: {CARRIED_NOTE}",
                f"/masked_case/weights/0/4: {nan_note.format(rest=rest)}",
                f"/parity: {raised.format(title='the parity check')}",
                f"/intervention: {raised.format(title='the parity check')}"]
    evidence = PartResult("evidence", 14, 14, messages=messages)
    row = row_of(feedback_page.render(result([evidence]), SPEC), "evidence")
    carried = re.search(r'<div class="carried">(.*?)</div>', row, re.S)
    assert carried, row
    said = visible_text(carried.group(1))
    assert said.count("Carried forward") == 3, said  # three distinct notes, each once
    assert said.count("your function returned NaN here") == 1
    assert "in /masked_case/weights/0/4 : your function returned NaN here" in " ".join(said.split())
    assert said.count("raised ValueError here") == 1
    assert re.search(r"in\s+parity\s+and\s+intervention\s*:\s*your\s+stable_softmax\s+raised",
                     said), said
    assert re.search(r"in\s+hand_example\s*:\s*these are the numbers", said), said
    assert feedback_page.points(14 - SPEC.evidence_sections["identity"]) in said
