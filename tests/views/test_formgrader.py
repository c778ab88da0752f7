"""Formgrader on our gradebook (issue 27): a submission shows as autograded (the gradebook's
timestamp is timestamp.txt's, as nbgrader reads it), its grading page has a graded notebook to
open (the student's, with our points in the check cells and nothing of the student's rendered
as HTML), and nbgrader's own autograde refuses in every root we record, touching nothing.
The views are the engine's, shown on the small `vectors` bundle; the text a person judges
(an evidence file's limitation) only H2 has. The whole flow through formgrader's HTTP API is
tests/review/test_formgrader_http.py."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.assignments import Assignment
from autograder.base.course import RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.batch import receipts
from autograder.grading.cells import release_locked_cells
from autograder.results.message import Message
from autograder.results.result import (
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    save,
)
from autograder.views import formgrader, gradebook, graded_notebook
from tests.support.vectors import VECTORS, submit

HOSTILE = "<script>alert('x')</script>"


def _result(student: str, status: str = STATUS_GRADED, message: str = "",
            assignment: Assignment = VECTORS) -> SubmissionResult:
    """The first part short of a point (with ``message``), the last waiting for a person."""
    last = len(assignment.parts) - 1
    parts = [PartResult(p.name, p.points - (1 if i == 0 else 0), p.points,
                        [Message(message)] if message and i == 0 else [],
                        needs_review=i == last) for i, p in enumerate(assignment.parts)]
    return SubmissionResult(student, assignment.name, status, parts=parts)


def _formgrader_html(notebook: Path) -> str:
    """The grading page's notebook part, rendered as formgrader renders it."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    exporter = HTMLExporter(template_name="formgrade",
                            extra_template_basedirs=[handlers.template_path])
    resources = {"assignment_id": VECTORS.name, "notebook_id": VECTORS.name, "submission_id": "x",
                 "index": 0, "total": 1, "base_url": "", "student": "s", "last_name": None,
                 "first_name": None, "notebook_path": "x"}
    return exporter.from_filename(str(notebook), resources=resources)[0]


def test_the_graded_notebook_carries_our_points_and_nothing_the_student_wrote_renders(tmp_path):
    course = Course(tmp_path, VECTORS.name)
    folder = submit(tmp_path, "s1")
    submitted = folder / VECTORS.notebook
    nb = json.loads(submitted.read_text(encoding="utf-8"))
    checks = {cell["metadata"]["nbgrader"]["grade_id"]: cell for cell in nb["cells"]
              if cell.get("metadata", {}).get("nbgrader", {}).get("grade")}
    # The student edits a locked check, forges its output and another cell's, claims a grade
    # id that is HTML, and writes markdown that is HTML and a javascript: link.
    forged = checks[VECTORS.part("norm").grade_cell]
    forged["source"] = "assert True  # the student's own 'check'"
    forged["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "3/3 forged"}]
    code = next(c for c in nb["cells"] if c["cell_type"] == "code" and c not in checks.values())
    code["outputs"] = [{"output_type": "display_data", "metadata": {},
                        "data": {"text/html": HOSTILE, "text/plain": "x"}}]
    code["metadata"]["nbgrader"] = {"grade": True, "grade_id": f'x">{HOSTILE}', "points": 99}
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "id": "evil",
                        "source": f"{HOSTILE} [click](javascript:alert(1)) ```` inside"})
    submitted.write_text(json.dumps(nb), encoding="utf-8")

    written = graded_notebook.write(course, _result("s1", message=f"<b>{HOSTILE}</b>"),
                                    assignment=VECTORS)
    assert written == course.autograded("s1") / f"{VECTORS.name}.ipynb"
    graded = nbformat.read(written, as_version=4)
    nbformat.validate(graded)
    marked = [cell for cell in graded.cells if "nbgrader" in cell.metadata]
    assert [cell.metadata.nbgrader.grade_id for cell in marked] == [
        p.grade_cell for p in VECTORS.parts]
    locked = release_locked_cells(VECTORS)
    for cell, part in zip(marked, VECTORS.parts, strict=True):
        assert cell.source == locked[part.grade_cell].source  # the release's, as nbgrader does
        assert cell.metadata.nbgrader.points == part.points
        [output] = cell.outputs
        assert output.text.startswith("autograder (sandboxed): "), output.text
        assert f"/{part.points:g} for {part.name}" in output.text.splitlines()[0]
    assert "provisional" in marked[-1].outputs[0].text  # the part waiting for a person
    others = [cell for cell in graded.cells if cell.cell_type == "code" and cell not in marked]
    assert others and not any(cell.outputs for cell in others)  # the student's are not shown

    page = _formgrader_html(written)
    assert "<script>alert" not in page and "javascript:" not in page.replace(
        "[click](javascript:", "")  # the link only as text, in a block of plain text
    assert "&lt;script&gt;alert(&#39;x&#39;)" in page or "&lt;script&gt;alert('x')" in page
    assert "3/3 forged" not in page and "<b>" not in page
    assert "&lt;b&gt;" in page  # our message, escaped
    boxes = re.findall(r'class="score tabbable" id="([^"]*)"', page)  # one score box a part
    assert boxes == [part.grade_cell for part in VECTORS.parts]


def test_a_submission_without_a_notebook_still_gets_a_box_for_every_part(tmp_path):
    course = Course(tmp_path, VECTORS.name)
    course.submitted("s1").mkdir(parents=True)
    result = _result("s1", STATUS_UNGRADABLE)
    result.reason = f"no notebook was submitted (expected {VECTORS.notebook})"
    graded = nbformat.read(graded_notebook.write(course, result, assignment=VECTORS), as_version=4)
    nbformat.validate(graded)
    assert result.reason in graded.cells[1].outputs[0].text
    marked = [cell for cell in graded.cells if "nbgrader" in cell.metadata]
    assert len(marked) == len(VECTORS.parts)
    assert all(cell.source.startswith(graded_notebook.MISSING_SOURCE) for cell in marked)


def test_the_text_to_judge_is_the_evidence_files(tmp_path):
    """H2's: an evidence file and a limitation part only it has."""
    from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
    from tests.support.h2 import H2

    course = Course(tmp_path, H2.name)
    unjudged = next(variant for variant in VARIANTS if variant.name == "unjudged_limitation")
    build_submission(tmp_path, "s1", unjudged)
    graded = nbformat.read(graded_notebook.write(course, _result("s1", assignment=H2),
                                                 assignment=H2), as_version=4)
    cell_id = H2.part("limitation").grade_cell
    limitation = next(cell for cell in graded.cells
                      if cell.metadata.get("nbgrader", {}).get("grade_id") == cell_id)
    assert "Text to judge" in limitation.outputs[0].text
    assert "out of its depth" in limitation.outputs[0].text


def _nbgrader_autograded(root: Path) -> set[str]:
    """Who formgrader shows as autograded: nbgrader's own rule."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(root=str(root))
    return NbGraderAPI(coursedir).get_autograded_students(VECTORS.name)


def test_record_sets_the_timestamp_formgrader_compares_and_writes_what_it_opens(tmp_path):
    course = Course(tmp_path, VECTORS.name)
    for student in ("s1", "s2"):
        course.submitted(student).mkdir(parents=True)
        save(_result(student), course.autograded(student) / RESULTS_JSON)
    stamp = course.submitted("s1") / TIMESTAMP_TXT
    stamp.write_text(receipts.time_text(datetime(2026, 12, 1, 9, 30, 1, 250000, tzinfo=UTC)) + "\n")
    # s2 has no timestamp.txt: nbgrader compares None with None.

    gradebook.record(course, [_result("s1"), _result("s2")], assignment=VECTORS)
    assert _nbgrader_autograded(tmp_path) == {"s1", "s2"}
    for student in ("s1", "s2"):  # written for a root graded before (no notebook yet)
        assert graded_notebook.path(course, student).is_file()
    assert formgrader.block(VECTORS.name) in (tmp_path / "nbgrader_config.py").read_text()

    stamp.write_text("2026-12-02 08:00:00.000001 UTC\n")  # a resubmission, not graded yet
    assert _nbgrader_autograded(tmp_path) == {"s2"}
    gradebook.record(course, [_result("s1")], assignment=VECTORS)
    assert _nbgrader_autograded(tmp_path) == {"s1", "s2"}
    assert gradebook.submitted_timestamp(course.submitted("s1")) == datetime(2026, 12, 2, 8, 0, 0, 1)
    stamp.write_text("not a time\n")
    assert gradebook.submitted_timestamp(course.submitted("s1")) is None


def test_the_config_block_is_added_once_kept_beside_the_roots_own_and_upgraded(tmp_path):
    config = tmp_path / "nbgrader_config.py"
    assert formgrader.install(tmp_path, VECTORS.name)
    assert not formgrader.install(tmp_path, VECTORS.name)
    config.write_text("c = get_config()\nc.CourseDirectory.course_id = 'dl'\n")  # a cohort's
    assert formgrader.install(tmp_path, VECTORS.name)
    text = config.read_text()
    assert text.startswith("c = get_config()\nc.CourseDirectory.course_id = 'dl'\n")
    assert text.count(formgrader.BEGIN) == 1
    config.write_text(text.replace("turned off", "switched off") + "# after\n")  # an old block
    assert formgrader.install(tmp_path, VECTORS.name)
    text = config.read_text()
    assert text.count(formgrader.BEGIN) == 1 and "switched off" not in text
    assert text.endswith("# after\n") and "course_id = 'dl'" in text


def test_a_block_under_the_old_markers_is_replaced_not_doubled(tmp_path):
    """A root whose nbgrader_config.py a grader wrote before its names were neutral: its
    block (old markers, old function name) is replaced in place by the current one."""
    from autograder import legacy_names

    old = (formgrader.block(VECTORS.name).replace(formgrader.BEGIN, legacy_names.FORMGRADER_BEGIN)
           .replace(formgrader.END, legacy_names.FORMGRADER_END)
           .replace("_refuse_nbgrader_autograde", "_old_refuse_autograde"))
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\nc.CourseDirectory.course_id = 'dl'\n\n" + old
                      + "# after\n")
    assert formgrader.install(tmp_path, VECTORS.name)
    text = config.read_text()
    assert legacy_names.FORMGRADER_BEGIN not in text and legacy_names.FORMGRADER_END not in text
    assert "_old_refuse_autograde" not in text
    assert text.count(formgrader.BEGIN) == 1 and text.count("Autograde.exporter_class") == 1
    assert text.startswith("c = get_config()\nc.CourseDirectory.course_id = 'dl'\n")
    assert text.endswith("# after\n")
    assert not formgrader.install(tmp_path, VECTORS.name)


def _refusing_exporter(converter: str = "Autograde") -> type:
    """The exporter class the block configures for nbgrader's ``converter``, as nbgrader's
    config loader would run it."""
    from traitlets.config import Config

    config = Config()
    exec(compile(formgrader.block(VECTORS.name), "nbgrader_config.py", "exec"),  # noqa: S102
         {"get_config": lambda: config})
    return config[converter].exporter_class


def _refused(converter: str, assignment: str, tmp_path: Path) -> str | object:
    """The message ``converter``'s exporter refuses with for ``assignment`` (nbgrader's
    converter as far as it is used: its course directory), or the exporter it makes."""
    from nbgrader.converters.base import NbGraderException
    from traitlets.config import LoggingConfigurable

    parent = LoggingConfigurable()
    parent.coursedir = SimpleNamespace(assignment_id=assignment, student_id="s1",
                                       root=str(tmp_path))
    try:
        return _refusing_exporter(converter)(parent=parent)
    except NbGraderException as raised:
        return str(raised)


ASSIGNMENTS = pytest.mark.parametrize("assignment, refused", [
    (VECTORS.name, True), ("*", True), ("other_assignment", False)])


@ASSIGNMENTS
def test_the_exporter_refuses_for_this_assignment_only(assignment, refused, tmp_path):
    message = _refused("Autograde", assignment, tmp_path)
    if not refused:
        assert not isinstance(message, str)  # nbgrader's NotebookExporter, as usual
        return
    assert "\n" not in message and "sandbox" in message
    assert (f"python -m autograder autograde {VECTORS.name} --root {tmp_path} --student s1"
            in message)


@ASSIGNMENTS
def test_the_feedback_exporter_refuses_for_this_assignment_only(assignment, refused, tmp_path):
    """Issue 51: generate_feedback (formgrader's Generate Feedback) replaced our pages."""
    from nbconvert.exporters import HTMLExporter

    message = _refused("GenerateFeedback", assignment, tmp_path)
    if not refused:
        assert isinstance(message, HTMLExporter)  # nbgrader's, as usual
        return
    assert "\n" not in message and "generate_feedback is turned off" in message
    assert "python -m autograder cohort feedback <cohort>" in message
    assert f"python -m autograder export --root {tmp_path}" in message


@pytest.mark.slow
def test_nbgrader_generate_feedback_refuses_in_a_recorded_root_and_touches_nothing(tmp_path):
    """The real `nbgrader generate_feedback` (formgrader's button runs the same converter)."""
    from autograder.views.nbgrader_feedback import write_feedback

    course = Course(tmp_path, VECTORS.name)
    submit(tmp_path, "s1")
    save(_result("s1"), course.autograded("s1") / RESULTS_JSON)
    (course.autograded("s1") / "feedback.html").write_text("<p>the grader's page</p>")
    gradebook.record(course, [_result("s1")], assignment=VECTORS)
    graded_notebook.write(course, _result("s1"), assignment=VECTORS)
    [page] = write_feedback(course, VECTORS)
    before = page.read_bytes()
    done = subprocess.run([*nbgrader_command(), "generate_feedback", VECTORS.name, "--force"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    said = [line for line in done.stderr.splitlines() if "turned off" in line]
    assert len(said) == 1 and "python -m autograder cohort feedback" in said[0], done.stderr
    assert "Traceback" not in done.stderr
    assert page.read_bytes() == before


@pytest.mark.slow
def test_nbgrader_autograde_refuses_in_a_recorded_root_and_touches_nothing(tmp_path):
    """The real `nbgrader autograde` (formgrader's button runs the same converter)."""
    course = Course(tmp_path, VECTORS.name)
    submit(tmp_path, "s1")
    save(_result("s1"), course.autograded("s1") / RESULTS_JSON)
    gradebook.record(course, [_result("s1")], assignment=VECTORS)
    before = {p.name: p.read_bytes() for p in course.autograded("s1").iterdir()}
    done = subprocess.run([*nbgrader_command(), "autograde", VECTORS.name,
                           "--student", "s1", "--force"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    said = [line for line in done.stderr.splitlines() if "turned off" in line]
    assert len(said) == 1 and "python -m autograder autograde" in said[0], done.stderr
    assert "Traceback" not in done.stderr
    assert {p.name: p.read_bytes() for p in course.autograded("s1").iterdir()} == before


def test_the_ta_guide_says_formgraders_totals_are_before_the_late_penalty():
    """Formgrader adds up the parts' points; our late penalty is nbgrader's
    late_submission_penalty, which only `nbgrader export` subtracts (issue 51, item 8): the
    TA guide says so where it presents formgrader."""
    from autograder.spec import REPO

    guide = (REPO / "docs" / "ta-guide.md").read_text(encoding="utf-8")
    section = guide.split("\n## Formgrader\n", 1)[1].split("\n## ", 1)[0]
    assert "before the late penalty" in section and "late_submission_penalty" in section
