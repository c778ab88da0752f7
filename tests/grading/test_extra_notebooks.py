"""A second notebook in a submission is never ignored without a word (issue 27).

``vectors.ipynb`` beside ``vectors-Copy1.ipynb`` (Jupyter's "Make a copy"): the assignment's
notebook is graded, the copy is named in the reason, and a person checks, whatever a TA later
decides about the parts. Only copies, several of them: none is graded. The assignment is the
small ``vectors`` test bundle: which notebook is graded is the engine's, not H2's.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from autograder.grading.submission import load_submission
from tests.support.vectors import VECTORS, submit

NOTEBOOK = VECTORS.notebook
COPY = NOTEBOOK.replace(".ipynb", "-Copy1.ipynb")
STUBS = VECTORS.grader_release_notebook  # the release notebook: every solution a stub


def _folder(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "submitted" / "s1" / VECTORS.name
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(STUBS, folder / name)
    return folder


def test_a_copy_beside_the_notebook_is_named_and_sent_to_review(tmp_path):
    submission = load_submission(_folder(tmp_path, NOTEBOOK, COPY), "s1", assignment=VECTORS)
    assert submission.notebook is not None and submission.notebook.name == NOTEBOOK
    assert not submission.fatal
    [note] = [note for note in submission.notes if note.review]
    assert note.code == "notebook_copies"
    why = note.text
    assert f"{NOTEBOOK!r} was graded" in why and f"{COPY!r}" in why
    assert "not graded" in why and "a person will check" in why


def test_several_copies_are_all_named(tmp_path):
    second = NOTEBOOK.replace(".ipynb", "-Copy2.ipynb")
    submission = load_submission(_folder(tmp_path, NOTEBOOK, second, COPY), "s1", assignment=VECTORS)
    [why] = [note.text for note in submission.notes if note.review]
    assert f"{COPY!r}, {second!r} were submitted beside it" in why


def test_a_hidden_file_is_no_copy(tmp_path):
    """macOS leaves ``._vectors.ipynb`` in a zip: not a student's notebook."""
    folder = _folder(tmp_path, NOTEBOOK)
    (folder / f"._{NOTEBOOK}").write_bytes(b"\0\5\x16\7")
    submission = load_submission(folder, "s1", assignment=VECTORS)
    assert submission.notes == []


def test_only_copies_none_is_graded_and_a_person_checks(tmp_path):
    second = NOTEBOOK.replace(".ipynb", "-Copy2.ipynb")
    submission = load_submission(_folder(tmp_path, COPY, second), "s1", assignment=VECTORS)
    assert submission.notebook is None
    assert f"{COPY!r}" in submission.fatal and f"{second!r}" in submission.fatal
    assert "none was graded" in submission.fatal and "a person will check" in submission.fatal


def test_one_renamed_notebook_alone_is_graded_as_before(tmp_path):
    submission = load_submission(_folder(tmp_path, COPY), "s1", assignment=VECTORS)
    assert submission.notebook is not None and submission.notebook.name == COPY
    (note,) = submission.notes
    assert not note.review and "graded anyway" in note.text


@pytest.mark.slow
def test_the_real_work_in_a_copy_goes_to_review_and_stays_there(tmp_path):
    """The student's solution is in the copy, the original holds the stubs: graded from the
    original (what the assignment asks for), flagged in results.json, grades.csv and the
    feedback page, with the copy named; a TA's decision on a part does not clear it."""
    from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
    from autograder.batch.engine import BatchOptions, grade_course
    from autograder.results.decisions import Decisions, apply
    from autograder.sandbox.limits import Limits

    folder = submit(tmp_path, "s1")  # the reference's code: full marks
    (folder / NOTEBOOK).rename(folder / COPY)
    shutil.copy(STUBS, folder / NOTEBOOK)
    course = Course(tmp_path, VECTORS.name)
    options = BatchOptions(jobs=1, progress=False, write_gradebook=False,
                           limits=Limits(cell_timeout=5, call_timeout=3, notebook_timeout=30))
    [result] = grade_course(course, options=options, assignment=VECTORS).results

    assert result.status == "graded" and result.score < result.max_score  # the stubs
    assert result.needs_review and COPY in result.reason
    saved = json.loads((course.autograded("s1") / RESULTS_JSON).read_text())["extra_data"]
    assert saved["needs_review"] is True and COPY in saved["reason"]
    with course.grades_csv().open(newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["needs_review"] == "yes" and COPY in row["reason"]
    assert COPY in (course.autograded("s1") / FEEDBACK_HTML).read_text()

    decisions = Decisions(tmp_path / "decisions.json")
    for part in result.parts:  # a TA settles every part; the copy is still to look at
        decisions.set(result, part.part, part.points, by="ta", note="checked")
    decided = apply(result, decisions)
    assert not any(part.needs_review for part in decided.parts)
    assert decided.needs_review
