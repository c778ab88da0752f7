"""In Gradescope's tree the grader's code (the reference and the checks) lies in
/autograder/source beside the submission: a notebook of stubs whose last cell imports the
reference or reads it there scores exactly what the same stubs score (issue 25, item 3).

What the sandbox hides is the engine's: the zip here is the small ``vectors`` test bundle's,
whose reference (``reference.py``) and checks lie in ``source/assignments/vectors``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat
import pytest

from autograder.integrations.gradescope import build
from tests.bundles import students
from tests.integrations.gradescope.test_gradescope_zip import run_in_tree, unpack_like_gradescope
from tests.support.reference_attack import search_cell

SECOND = students.assignment()  # vectors: dot, norm, normalize; 10 points

pytestmark = pytest.mark.slow

# The vectors bundle as the zip lays it out (source/assignments/vectors): its reference, checks
# and helpers, by import and by path; what is found is bound over the stubs.
SEARCH = search_cell(
    imports=("reference", "assignments.vectors.reference", "test_vectors_dot", "vectors_helpers"),
    relatives=("reference.py", "assignments/vectors/reference.py",
               "source/assignments/vectors/reference.py"))
TAKE_REFERENCE = '''
for _key, _value in _reference_sources(PATHS).items():
    if _key.startswith("import "):
        _module = importlib.import_module(_value)
        if hasattr(_module, "normalize"):
            dot, norm, normalize = _module.dot, _module.norm, _module.normalize
    elif _key.endswith("reference.py"):
        exec(_value)
'''


def write_stubs(folder: Path, student: str, reference_paths: list[str] | None = None) -> None:  # noqa: ARG001 - no evidence file
    """The release notebook's untouched stubs; with ``reference_paths``, a last cell that
    tries to take the reference (by import, by those paths, by a scan of ``sys.path``) and
    bind its functions over the stubs."""
    notebook = nbformat.read(SECOND.grader_release_notebook, as_version=4)
    if reference_paths is not None:
        notebook.cells.append(nbformat.v4.new_code_cell(
            SEARCH + textwrap.dedent(TAKE_REFERENCE).replace("PATHS", repr(reference_paths))))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SECOND.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")


def test_the_zip_s_reference_is_out_of_the_sandbox_s_reach(tmp_path):
    root = unpack_like_gradescope(build.build(tmp_path / "zip", SECOND), tmp_path / "autograder")
    bundle = root / "source" / build.FOLDER_BUNDLES / SECOND.name
    reference = [str(bundle / "reference.py"), str(bundle / "checks" / "test_vectors_dot.py")]
    assert all(Path(path).is_file() for path in reference)

    stubs = run_in_tree(root, "s201", write_stubs)
    taker = run_in_tree(root, "s202",
                        lambda folder, student: write_stubs(folder, student, reference))
    assert stubs["score"] < SECOND.total_points
    assert taker["score"] == stubs["score"], (taker["score"], stubs["score"])
    assert [(t["name"], t["score"]) for t in taker["tests"]] == [
        (t["name"], t["score"]) for t in stubs["tests"]]
    assert "minimal-root" in taker["extra_data"]["isolation"], taker["extra_data"]
