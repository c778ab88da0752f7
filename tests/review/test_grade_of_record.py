"""One grade of record (issue 27): a TA's decision, made with `review set` or entered in the
gradebook as formgrader does, is in results.json, feedback.html, grades.csv and the gradebook
(nbgrader export) alike, survives `autograde --force`, and is flagged, never silently dropped,
when the part it judged changes."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.batch.engine import BatchOptions, grade_course
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.results.decisions import DECISIONS_JSON
from autograder.results.result import load
from autograder.sandbox.limits import Limits
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of

pytestmark = pytest.mark.slow

UNJUDGED, CORRECT = "s01-unjudged", "s02-correct"
OPTIONS = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3,
                                                              notebook_timeout=30))


def _build(root: Path) -> Course:
    by_name = {variant.name: variant for variant in VARIANTS}
    build_submission(root, UNJUDGED, by_name["unjudged_limitation"])
    build_submission(root, CORRECT, by_name["correct"])
    return Course(root, SPEC.name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """The two students graded once for the module; each test works on a copy of the root."""
    course = _build(tmp_path_factory.mktemp("graded") / "course")
    grade_course(course, options=OPTIONS)
    return course.root


def _graded_copy(graded: Path, tmp_path: Path) -> Course:
    """A graded root of the test's own: the module's, copied."""
    return Course(copy_of(graded, tmp_path / "course"), SPEC.name)


def _review(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "review", "--root", str(root),
                           *args], capture_output=True, text=True, timeout=120)


def _grades_csv(course: Course) -> dict[str, dict[str, str]]:
    with course.grades_csv().open(encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def _nbgrader_export(root: Path) -> dict[str, float]:
    out = root / "export.csv"
    subprocess.run([*nbgrader_command(), "export", f"--CourseDirectory.root={root}",
                    "--to", str(out), "--log-level=ERROR"], check=True, capture_output=True,
                   timeout=120)
    with out.open(encoding="utf-8") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


def _everywhere(course: Course, student: str) -> dict[str, float]:
    result = load(course.autograded(student) / RESULTS_JSON)
    assert result is not None
    return {
        "results.json": result.score,
        "grades.csv": float(_grades_csv(course)[student]["total"]),
        "nbgrader export": _nbgrader_export(course.root)[student],
    }


def _set_manual_score_as_formgrader_does(root: Path, student: str, part: str, score: float):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade(SPEC.part(part).grade_cell, SPEC.name, SPEC.name, student)
        grade.manual_score = score
        grade.needs_manual_grade = False
        gradebook.db.commit()


def test_a_decision_is_the_grade_everywhere_and_survives_a_forced_regrade(tmp_path, graded):
    course = _graded_copy(graded, tmp_path)
    before = load(course.autograded(UNJUDGED) / RESULTS_JSON)
    assert before.part("limitation").needs_review and before.needs_review

    listed = _review(course.root, "list")
    assert listed.returncode == 0, listed.stderr
    assert UNJUDGED in listed.stdout and "limitation" in listed.stdout
    assert "out of its depth" in listed.stdout  # the text a person must read
    assert CORRECT not in listed.stdout

    decided = _review(course.root, "set", UNJUDGED, "limitation", "7", "--note", "fair point",
                      "--by", "ta-ann")
    assert decided.returncode == 0, decided.stderr
    want = before.score - before.part("limitation").points + 7
    assert set(_everywhere(course, UNJUDGED).values()) == {want}
    after = load(course.autograded(UNJUDGED) / RESULTS_JSON)
    assert not after.needs_review and after.part("limitation").auto_points == 4
    page = (course.autograded(UNJUDGED) / "feedback.html").read_text(encoding="utf-8")
    assert "scored 7 by ta-ann" in page and "fair point" in page
    # The machine's "provisional" no longer stands above the review (issue 37): the page says
    # what the grader said came before it, and formgrader's check cell says it was reviewed.
    assert "What the grader said before a person reviewed this part" in page
    from autograder.views import graded_notebook

    cells = json.loads(graded_notebook.path(course, UNJUDGED).read_text())["cells"]
    shown = "".join(out.get("text", "") for cell in cells for out in cell.get("outputs", []))
    assert "limitation, reviewed by a person since: scored 7 by ta-ann" in shown
    assert "for limitation, provisional" not in shown
    assert _grades_csv(course)[UNJUDGED]["needs_review"] == "no"

    grade_course(course, options=replace(OPTIONS, force=True))
    assert set(_everywhere(course, UNJUDGED).values()) == {want}
    assert not load(course.autograded(UNJUDGED) / RESULTS_JSON).needs_review

    cleared = _review(course.root, "clear", UNJUDGED, "limitation")
    assert cleared.returncode == 0, cleared.stderr
    assert set(_everywhere(course, UNJUDGED).values()) == {before.score}
    assert load(course.autograded(UNJUDGED) / RESULTS_JSON).needs_review

    told = _review(course.root, "history", UNJUDGED)  # nothing decided is lost, even cleared
    assert told.returncode == 0, told.stderr
    assert "limitation: 7 by ta-ann: fair point" in told.stdout
    assert "decision of 7 taken back" in told.stdout and "2 decisions about" in told.stdout


def test_a_formgrader_score_is_read_in_and_a_changed_part_is_flagged_not_dropped(tmp_path, graded):
    course = _graded_copy(graded, tmp_path)
    _set_manual_score_as_formgrader_does(course.root, UNJUDGED, "limitation", 6)

    grade_course(course, options=OPTIONS)  # nothing to regrade: the decision is read in
    decisions = json.loads((course.root / DECISIONS_JSON).read_text())["parts"]
    assert [(d["student"], d["part"], d["points"], d["by"]) for d in decisions] == [
        (UNJUDGED, "limitation", 6.0, "formgrader")]
    scores = _everywhere(course, UNJUDGED)
    assert len(set(scores.values())) == 1, scores

    # The student's evidence file changes (a resubmission): the decision judged another text.
    evidence = course.submitted(UNJUDGED) / SPEC.evidence_file
    data = json.loads(evidence.read_text())
    data["limitation"] += " It also cannot say when it is unsure."
    evidence.write_text(json.dumps(data, indent=2))
    grade_course(course, options=OPTIONS)
    result = load(course.autograded(UNJUDGED) / RESULTS_JSON)
    part = result.part("limitation")
    assert part.needs_review and result.needs_review
    assert part.decided.startswith("not applied") and "scored 6 by formgrader" in part.decided
    assert len(set(_everywhere(course, UNJUDGED).values())) == 1


def test_a_resubmission_keeps_a_decision_unless_what_the_part_judged_changed(tmp_path, graded):
    """Issue 51: a resubmission that only added a markdown cell voided the TA's score of the
    limitation ("has changed since"); a changed limitation text must still void it."""
    course = _graded_copy(graded, tmp_path)
    decided = _review(course.root, "set", UNJUDGED, "limitation", "7", "--by", "ta-ann")
    assert decided.returncode == 0, decided.stderr
    before = load(course.autograded(UNJUDGED) / RESULTS_JSON)

    notebook = course.submitted(UNJUDGED) / SPEC.notebook
    cells = json.loads(notebook.read_text(encoding="utf-8"))
    cells["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "Thanks!"})
    notebook.write_text(json.dumps(cells), encoding="utf-8")
    grade_course(course, options=OPTIONS)
    result = load(course.autograded(UNJUDGED) / RESULTS_JSON)
    assert result.submission_hash != before.submission_hash  # regraded: another submission
    part = result.part("limitation")
    assert part.points == 7 and part.decided.startswith("scored 7 by ta-ann"), part.decided
    assert not result.needs_review

    evidence = course.submitted(UNJUDGED) / SPEC.evidence_file
    data = json.loads(evidence.read_text())
    data["limitation"] += " It also cannot say when it is unsure."
    evidence.write_text(json.dumps(data, indent=2))
    grade_course(course, options=OPTIONS)
    part = load(course.autograded(UNJUDGED) / RESULTS_JSON).part("limitation")
    assert part.needs_review and part.decided.startswith("not applied"), part.decided
    assert "changed since" in part.decided


def test_a_formgrader_score_read_in_by_review_is_in_every_output_at_once(tmp_path, graded):
    """Issue 37: `review list` read a formgrader score in, while grades.csv, results.json and
    feedback.html kept the old total until the next `autograde`. Issue 51: `list` only reads
    (it names the score); the next command that changes the root records it, everywhere."""
    course = _graded_copy(graded, tmp_path)
    before = load(course.autograded(UNJUDGED) / RESULTS_JSON)
    _set_manual_score_as_formgrader_does(course.root, UNJUDGED, "limitation", 7)
    listed = _review(course.root, "list")
    assert listed.returncode == 0, listed.stderr
    assert f"({UNJUDGED} limitation 7)" in listed.stderr
    assert load(course.autograded(UNJUDGED) / RESULTS_JSON) == before  # nothing written
    decided = _review(course.root, "set", CORRECT, "limitation", "8")
    assert decided.returncode == 0, decided.stderr
    assert f"from formgrader: {UNJUDGED} limitation scored 7 by formgrader" in decided.stdout
    want = before.score - before.part("limitation").points + 7
    assert _everywhere(course, UNJUDGED) == dict.fromkeys(
        ("results.json", "grades.csv", "nbgrader export"), want)
    page = (course.autograded(UNJUDGED) / "feedback.html").read_text(encoding="utf-8")
    assert "scored 7 by formgrader" in page


def test_review_refuses_what_it_cannot_record_in_one_line(tmp_path, graded):
    nothing = _review(_build(tmp_path / "ungraded").root, "list")
    assert nothing.returncode == 2 and nothing.stderr.count("\n") == 1, nothing.stderr
    course = _graded_copy(graded, tmp_path)
    for args, words in ((("set", UNJUDGED, "limitation", "9"), "worth 0 to 8"),
                        (("set", UNJUDGED, "nonsense", "1"), "no part 'nonsense'"),
                        (("set", "nobody", "limitation", "1"), "no graded result for nobody"),
                        # a typo in an id: refused, naming the close one (issue 37)
                        (("history", "s01-unjudgd"), "did you mean s01-unjudged?"),
                        (("set", "s01-unjudgd", "limitation", "1"), "did you mean s01-unjudged?"),
                        (("clear", CORRECT, "limitation"), "no decision")):
        refused = _review(course.root, *args)
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert words in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr


def test_cohort_export_reads_a_formgrader_score_in_before_it_exports(tmp_path, graded):
    """`cohort export` right after a TA scored in formgrader (no autograde in between) wrote
    the old total to grades.csv and the LMS files beside nbgrader export's new one."""
    from autograder.publish.export import read_in_formgrader as _read_in_formgrader

    course = _graded_copy(graded, tmp_path)
    _set_manual_score_as_formgrader_does(course.root, UNJUDGED, "limitation", 8)
    _read_in_formgrader(course, SPEC)
    scores = _everywhere(course, UNJUDGED)
    assert len(set(scores.values())) == 1, scores
    assert load(course.autograded(UNJUDGED) / RESULTS_JSON).part("limitation").points == 8


def test_a_plain_root_reaches_the_lms_and_its_files_follow_a_later_decision(tmp_path, graded):
    """Issue 37: `cohort export demo-2026` said there was no such cohort for a root graded with
    `autograde --root`; feedback copies and LMS files needed a cohorts.toml entry."""
    course = _graded_copy(graded, tmp_path)
    exported = subprocess.run([sys.executable, "-m", "autograder", "export", "--root",
                               str(course.root), "--canvas-assignment-name", "HW 2",
                               "--moodle-identifier", "email"],
                              capture_output=True, text=True, timeout=300)
    assert exported.returncode == 0, exported.stderr
    assert "canvas: " in exported.stdout and "2 feedback pages" in exported.stdout

    def lms_totals() -> tuple[dict[str, str], dict[str, str]]:
        with (course.root / "canvas-grades.csv").open(newline="", encoding="utf-8") as handle:
            header, _, *rows = list(csv.reader(handle))
        assert header[-1] == "HW 2"
        with (course.root / "moodle-grades.csv").open(newline="", encoding="utf-8") as handle:
            moodle_header, *moodle_rows = list(csv.reader(handle))
        assert moodle_header[0] == "email"
        return {row[3]: row[-1] for row in rows}, dict(moodle_rows)

    totals = {student: row["total"] for student, row in _grades_csv(course).items()}
    assert lms_totals() == (totals, totals)
    page = course.feedback(UNJUDGED) / f"{SPEC.notebook.removesuffix('.ipynb')}.html"
    assert page.read_bytes() == (course.autograded(UNJUDGED) / "feedback.html").read_bytes()

    decided = _review(course.root, "set", UNJUDGED, "limitation", "8")
    assert decided.returncode == 0, decided.stderr
    assert "canvas-grades.csv" in decided.stdout and "NOT rewritten" not in decided.stdout
    totals = {student: row["total"] for student, row in _grades_csv(course).items()}
    assert lms_totals() == (totals, totals)  # the remembered columns, the new total
    assert page.read_bytes() == (course.autograded(UNJUDGED) / "feedback.html").read_bytes()
