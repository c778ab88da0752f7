"""Cell roles come from the release, never from the student's notebook metadata.

A student can edit metadata with any text editor: mark a cell locked, delete
all metadata, add a fake grade cell, claim an instructor cell's id. Each must
be read as what the release says it is (``autograder.grading.cells``). The
notebook is the small ``vectors`` test bundle's: cell roles are the engine's, not H2's.
"""

from __future__ import annotations

import copy

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from autograder.grading.cells import assign_roles, release_locked_cells
from autograder.grading.submission import load_submission
from tests.support.vectors import REFERENCE, VECTORS, solved_notebook

STUDENT = "s-tamper"
HELPER = "def helper_from_a_fake_cell():\n    return 42\n"
DOT_CHECK = VECTORS.part("dot").grade_cell


def submit(tmp_path, notebook: nbformat.NotebookNode, name: str = "nb"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / VECTORS.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")
    return load_submission(folder, STUDENT, assignment=VECTORS)


def runnable(submission) -> list[str]:
    return [cell.source for cell in submission.cells if cell.source is not None]


def nbgrader_meta(notebook, gid):
    return next(c for c in notebook.cells if grade_id(c) == gid).metadata["nbgrader"]


@pytest.fixture(scope="module")
def honest() -> nbformat.NotebookNode:
    return nbformat.from_dict(solved_notebook(REFERENCE))


@pytest.fixture
def honest_run(tmp_path, honest) -> list[str]:
    return runnable(submit(tmp_path, honest, "honest"))


def test_the_release_decides_what_runs(tmp_path, honest):
    cells = {cell.grade_id: cell for cell in submit(tmp_path, honest).cells}
    for gid in VECTORS.run_cells | VECTORS.solution_cells:
        assert cells[gid].source is not None, gid
    for gid in VECTORS.skip_cells | set(VECTORS.grade_cells):
        assert cells[gid].source is None, gid


def test_deleting_all_metadata_changes_nothing(tmp_path, honest, honest_run):
    stripped = copy.deepcopy(honest)
    for cell in stripped.cells:
        cell.metadata.pop("nbgrader", None)
    assert runnable(submit(tmp_path, stripped)) == honest_run


def test_a_solution_cell_marked_locked_still_runs(tmp_path, honest, honest_run):
    tampered = copy.deepcopy(honest)
    meta = nbgrader_meta(tampered, "dot")
    meta.update(locked=True, solution=False, grade=False)
    assert runnable(submit(tmp_path, tampered)) == honest_run


@pytest.mark.parametrize("claimed", ["bonus_grade_cell", DOT_CHECK, "setup", "demo"])
def test_a_fake_instructor_cell_is_student_code(tmp_path, honest, honest_run, claimed):
    """A new cell claiming grade/locked status (a new id, or the id of a real locked cell
    that is still there) runs as the student's code."""
    tampered = copy.deepcopy(honest)
    fake = nbformat.v4.new_code_cell(HELPER)
    fake.metadata["nbgrader"] = {"grade": True, "locked": True, "solution": False,
                                 "grade_id": claimed, "points": 100, "schema_version": 3}
    tampered.cells.insert(3, fake)
    ran = runnable(submit(tmp_path, tampered))
    assert HELPER in ran
    assert [source for source in ran if source != HELPER] == honest_run


def test_an_edited_locked_cell_is_what_the_release_says(tmp_path, honest, honest_run):
    """As nbgrader's OverwriteCells: an edited visible check stays skipped, an edited
    setup cell runs with the release's text."""
    tampered = copy.deepcopy(honest)
    for cell in tampered.cells:
        if grade_id(cell) in (DOT_CHECK, "setup"):
            cell.source += "\nraise SystemExit('edited by the student')\n"
    assert runnable(submit(tmp_path, tampered)) == honest_run


def test_a_visible_check_without_metadata_is_still_skipped():
    check = release_locked_cells(VECTORS)[VECTORS.part("norm").grade_cell]
    roles = assign_roles([(check.source, ""), ("x = 1\n", "")], release_locked_cells(VECTORS))
    assert [role.role for role in roles] == ["skip", "student"]
    assert roles[0].grade_id == check.grade_id and roles[0].source is None


@pytest.mark.slow
def test_a_tampered_correct_notebook_scores_full_marks(tmp_path, honest):
    """Through the real sandbox: every tampering above at once costs nothing."""
    from autograder.grading.grade_one import GradingSession, grade_submission

    tampered = copy.deepcopy(honest)
    demo = next(cell for cell in tampered.cells if grade_id(cell) == "demo")
    for cell in tampered.cells:
        cell.metadata.pop("nbgrader", None)
    demo.metadata["nbgrader"] = {"locked": True, "solution": False, "grade": True,
                                 "grade_id": DOT_CHECK, "points": 3}
    fake = nbformat.v4.new_code_cell(HELPER)
    fake.metadata["nbgrader"] = {"grade": True, "locked": True, "grade_id": "setup"}
    tampered.cells.insert(2, fake)
    submissions = [submit(tmp_path, notebook, name) for notebook, name in
                   ((honest, "honest"), (tampered, "tampered"))]
    session = GradingSession.start(VECTORS)
    try:
        honest_result, tampered_result = (grade_submission(s, session) for s in submissions)
    finally:
        session.close()
    assert honest_result.score == VECTORS.total_points
    assert {p.part: p.points for p in tampered_result.parts} == {
        p.part: p.points for p in honest_result.parts}


def test_a_missing_release_is_a_clear_error(tmp_path):
    from autograder.grading.cells import ReleaseMismatch

    with pytest.raises(ReleaseMismatch, match="cannot read the release notebook"):
        release_locked_cells(VECTORS, tmp_path / "missing.ipynb")
