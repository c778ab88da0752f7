"""The pages people read, rendered by a real browser (headless Chromium, tests/support/browser.py):
a student's feedback.html and the instructor's report.html, both made by the real grader from a
graded course (below). No console error, every part there, and a screenshot of each kept
under the course root, ``<root>/report/screenshots/{feedback,report}.png``, with one of each of
the four pages students see most (``feedback-{correct,one-bug,hang,ungradable}.png``; a copy
goes to ``$BROWSER_SCREENSHOTS`` when set: ``.ci/run`` keeps them in ``.ci/artifacts/screenshots/``).

In CI (``CI`` set) these tests fail when Chromium is missing; elsewhere they skip."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, Course
from autograder.batch.engine import BatchOptions, grade_course
from autograder.bundles.h2_attention.samples import DEMO_DUE, VARIANTS, build_submission, on_time
from autograder.results import root_settings
from autograder.results.result import SubmissionResult
from autograder.sandbox.limits import Limits
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

# A small course where every section of the report has something to show (a misconception,
# carried-forward points, a person to review, an ungradable notebook, a late submission,
# submission times, a planted near-copy pair among students whose code is otherwise the
# shared reference), graded by the real batch grader.
COHORT = "demo-2026"
COURSE = "Deep Learning, fall 2026"
ROSTER = {
    "a-correct": "correct",
    "b-wrong-axis": "softmax_wrong_axis",  # a misconception; later parts carried forward
    "c-unscaled": "unscaled_scores",
    "d-argmax": "context_argmax",
    "e-no-evidence": "no_evidence",
    "f-own-solution": "own_solution",  # the planted near-copy pair
    "g-near-copy": "near_copy",
    "h-late": "late",
    "i-unjudged": "unjudged_limitation",  # a person reads the limitation
    "j-broken": "broken_notebook",  # ungradable
    "k-hang": "infinite_loop",  # stable_softmax never returns
}
NEAR_COPIES = ("f-own-solution", "g-near-copy")
FAST_LIMITS = Limits(cell_timeout=5, call_timeout=3, notebook_timeout=30)


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory) -> tuple[Path, dict[str, SubmissionResult]]:
    """(course root, results by student), graded against ``DEMO_DUE`` in cohort ``COHORT``."""
    root = tmp_path_factory.mktemp("browser") / "course"
    by_name = {variant.name: variant for variant in VARIANTS}
    for number, (student, name) in enumerate(ROSTER.items()):
        build_submission(root, student, by_name[name], COHORT,
                         submitted_at=on_time(number, len(ROSTER)))
    root_settings.remember(root, SPEC.name, course=COURSE)  # as `autograde --course-name`
    options = BatchOptions(jobs=2, progress=False, limits=FAST_LIMITS, cohort=COHORT,
                           due=DEMO_DUE, write_gradebook=False)
    summary = grade_course(Course(root, SPEC.name), options=options)
    return root, {result.student: result for result in summary.results}


STUDENT = "b-wrong-axis"  # code spans, a diagnosis and carried-forward points
REPORT_SECTIONS = ("score-histogram", "part-distribution", "item-analysis", "misconceptions",
                   "review", "late", "submission-times", "similarity")
PLOTS = ("score-histogram", "part-distribution", "submission-times")
PNG = b"\x89PNG\r\n\x1a\n"


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(PNG), f"{path} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_a_students_feedback_page_in_chromium(browser, graded_course):
    root, results = graded_course
    result = results[STUDENT]
    shot = root / "report" / "screenshots" / "feedback.png"
    page = browser(root / "autograded" / STUDENT / SPEC.name / FEEDBACK_HTML, screenshot=shot)

    assert page.console_errors == []
    header = page.find("header").text
    for fact in (COURSE, COHORT, SPEC.name, STUDENT, result.graded_on):
        assert fact and fact in header, (fact, header)
    rows = page.find_all("tr[id^='part-']")
    assert [row.get_attribute("id") for row in rows] == [f"part-{p}" for p in SPEC.part_points]
    assert all(row.is_displayed() for row in rows)

    spans = [code.text for code in page.find_all("ul.problems code, .diagnosis code, .carried code")]
    assert "stable_softmax" in spans, spans  # `stable_softmax` in the messages, as code
    assert "`" not in page.visible_text
    carried = page.find_all("tr#part-scaled_dot_product_attention .carried")
    assert carried and carried[0].is_displayed() and "Carried forward" in carried[0].text
    assert page.find("tr#part-stable_softmax .diagnosis").is_displayed()
    for other in ROSTER:
        assert other == STUDENT or other not in page.visible_text

    width, height = _png_size(shot)
    assert width >= 800 and height >= 900, (width, height)  # the whole page, not a blank tile


# The pages students see most: all correct, one bug, a function that hangs, a notebook that
# could not be graded (issue 26).
MOST_SEEN = {"a-correct": "correct", "b-wrong-axis": "one-bug", "k-hang": "hang",
             "j-broken": "ungradable"}


@pytest.mark.parametrize("student", list(MOST_SEEN))
def test_the_pages_students_see_most_in_chromium(browser, graded_course, student):
    """Each page as a student reads it: a total only when there is one, the likely cause above
    the failed checks, each failed check with the points it cost, no Markdown shown raw, a
    carried-forward box only on a part whose checks carried points, and a paragraph said once."""
    root, results = graded_course
    result = results[student]
    shot = root / "report" / "screenshots" / f"feedback-{MOST_SEEN[student]}.png"
    page = browser(root / "autograded" / student / SPEC.name / FEEDBACK_HTML, screenshot=shot)
    assert page.console_errors == []
    text = page.visible_text
    assert "`" not in text and not re.search(r"(?<![\w*])\*\w[^*]*\w\*(?![\w*])", text), text
    assert "a TA should look" not in text
    header = page.find("header").text
    if result.status == "graded":
        assert f"{result.score:g} / {result.max_score:g} points" in header
    else:
        assert "No total" in header and f"{result.score:g} / " not in header
        assert page.find("tr#part-stable_softmax td.points").text.startswith("—")
    for row in page.find_all("tr[id^='part-']"):
        assert row.is_displayed()
        boxes = row.find_elements("css selector", "div.carried")
        if boxes:  # only where points were carried, and it says how many
            assert re.search(r"\d+ points? of this part stands?: the earlier bug is charged once", boxes[0].text)
        causes = row.find_elements("css selector", ".diagnosis")
        problems = row.find_elements("css selector", "ul.problems")
        if causes and problems:
            assert causes[0].location["y"] < problems[0].location["y"]
    if student == "a-correct":
        assert not page.find_all(".diagnosis, ul.problems, div.carried")
    if student == "b-wrong-axis":
        row = page.find("tr#part-stable_softmax")
        assert row.find_elements("css selector", ".diagnosis")
        assert re.search(r"−\d+ points?", row.text), row.text
    if student == "k-hang":
        evidence = page.find("tr#part-evidence")
        for name, worth in SPEC.evidence_sections.items():  # each section with its worth
            cell = evidence.find_element("css selector", f"#section-{name}").text
            assert name in cell and f"/ {worth:g}" in cell, cell
        shared = evidence.find_elements("css selector", "p.shared")
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", shared[0].text) if len(s) > 30] \
            if shared else []
        for sentence in sentences:
            assert text.count(sentence) == 1, sentence
    width, height = _png_size(shot)
    assert width >= 800 and height >= 600, (width, height)


def test_the_instructors_report_in_chromium(browser, graded_course):
    root, _ = graded_course
    from autograder.report import write_report  # the report is issue 15's part 1

    files = write_report(root, SPEC, cohort=COHORT)
    assert files.html == root / "report" / "report.html"
    shot = root / "report" / "screenshots" / "report.png"
    page = browser(files.html, screenshot=shot)

    assert page.console_errors == []
    for name in REPORT_SECTIONS:
        section = page.find(f"section#{name}")
        assert section.is_displayed() and section.size["height"] > 0, name
        assert section.text.strip(), f"section {name} is empty"
    for name in PLOTS:
        plots = page.find_all(f"section#{name} svg, section#{name} img")
        assert plots, f"no plot in {name}"
        assert all(plot.size["width"] > 0 and plot.size["height"] > 0 for plot in plots), name
    assert page.find_all("section#item-analysis table tbody tr"), "the item analysis has no rows"
    for table in page.find_all("table"):
        assert table.find_elements("css selector", "tbody tr"), table.get_attribute("outerHTML")[:200]
    similarity = page.find("section#similarity").text
    assert all(student in similarity for student in NEAR_COPIES)
    assert _png_size(shot)[1] >= 900


def test_the_planted_near_copies_are_the_only_similar_pair(graded_course):
    """The report's similarity finds the pair ``sample_cohort`` planted, and nothing else
    among students whose code is otherwise the shared reference; the copy's grade is the
    original's (similarity flags for a person, it changes no grade)."""
    root, results = graded_course
    from autograder.report import write_report

    files = write_report(root, SPEC, cohort=COHORT, out_dir=root / "report-pairs")
    (table,) = [path for path in files.csv if path.name == "similarity.csv"]
    with table.open(newline="", encoding="utf-8") as handle:
        flagged = {tuple(sorted((row["student_a"], row["student_b"])))
                   for row in csv.DictReader(handle) if row["flagged"] == "yes"}
    assert flagged == {NEAR_COPIES}
    original, copy = (results[student] for student in NEAR_COPIES)
    assert original.score == copy.score == 100


def test_the_late_submission_is_flagged_and_the_others_are_not(graded_course):
    _, results = graded_course
    late = {student for student, result in results.items() if result.late}
    assert late == {"h-late"}
    assert not any(result.late_unknown for result in results.values())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", results["a-correct"].graded_on)
