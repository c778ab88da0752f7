"""A bundle kept anywhere is hidden from the workers like the installed grader (issue 38).

The sandbox shows ``/opt``, ``/etc`` and ``/usr`` whole. A course's bundle kept under
``/opt`` was readable by student code: a notebook of stubs plus one cell that runs the
bundle's ``reference.py`` scored full marks, with no review flag, and the bundle's path
showed in the feedback. Now the bundle's folder is hidden in every worker, the attempt sends
the submission to a person, and the path never shows."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import nbformat
import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON
from autograder.spec import REPO
from tests.bundles import students
from tests.support.skips import needs

pytestmark = pytest.mark.slow


@pytest.fixture
def bundle_under_opt():
    """A copy of the test bundle ``vectors`` in a folder of /opt (the sandbox shows /opt)."""
    if not Path("/opt").is_dir():
        pytest.skip(needs("no /opt on this machine", "create it with: sudo mkdir -m 755 /opt"))
    folder = Path("/opt") / f"h2-test-bundles-{uuid.uuid4().hex[:8]}"
    shutil.copytree(students.BUNDLES / students.NAME, folder / students.NAME)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def submission(root: Path, student: str, reference: Path | None) -> None:
    """The release notebook's stubs, and (with ``reference``) a last cell that runs it."""
    notebook = nbformat.read(students.BUNDLES / students.NAME / "data" /
                             f"{students.NAME}.ipynb", as_version=4)
    if reference is not None:
        notebook.cells.append(nbformat.v4.new_code_cell(
            f"exec(open({str(reference)!r}).read())"))
    folder = root / "submitted" / student / students.NAME
    folder.mkdir(parents=True)
    (folder / f"{students.NAME}.ipynb").write_text(nbformat.writes(notebook), encoding="utf-8")


def test_a_bundle_under_opt_is_hidden_and_reaching_for_it_is_reviewed(tmp_path, bundle_under_opt):
    root = tmp_path / "course"
    reference = bundle_under_opt / students.NAME / "reference.py"
    submission(root, "stubs", None)
    submission(root, "reads-bundle", reference)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", students.NAME, "--root", str(root),
         "--assignments", str(bundle_under_opt), "--no-progress", "--jobs", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]

    def saved(student: str) -> dict:
        folder = root / "autograded" / student / students.NAME
        return json.loads((folder / RESULTS_JSON).read_text())

    stubs, reader = saved("stubs"), saved("reads-bundle")
    assert reader["score"] == stubs["score"] < reader["max_score"]  # the reference was not read
    assert reader["extra_data"]["needs_review"] and not stubs["extra_data"]["needs_review"]
    assert "reached_out_cell" in {note["code"] for note in reader["extra_data"]["notes"]}
    page = (root / "autograded" / "reads-bundle" / students.NAME / FEEDBACK_HTML).read_text()
    text = json.dumps(reader) + page
    assert str(bundle_under_opt) not in text and "reference.py" in text  # named, not placed
