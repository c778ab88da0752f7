"""In Gradescope's tree the grader's code (the reference and the checks) lies in
/autograder/source beside the submission: a notebook of stubs whose last cell imports the
reference or reads it there scores exactly what the same stubs score (issue 25, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.integrations.gradescope import build
from tests.integrations.gradescope.test_gradescope_zip import run_in_tree, unpack_like_gradescope
from tests.support.h2 import H2
from tests.support.reference_attack import write_stubs

pytestmark = pytest.mark.slow


def test_the_zip_s_reference_is_out_of_the_sandbox_s_reach(tmp_path):
    root = unpack_like_gradescope(build.build(tmp_path / "zip", H2), tmp_path / "autograder")
    reference = [str(root / "source" / "solutions" / "attention.py"),
                 str(root / "source" / "autograder" / "bundles" / "h2_attention" / "checks" / "test_softmax.py")]
    assert all(Path(path).is_file() for path in reference)

    stubs = run_in_tree(root, "s201", write_stubs)
    taker = run_in_tree(root, "s202",
                        lambda folder, student: write_stubs(folder, student, reference))
    assert stubs["score"] < 100
    assert taker["score"] == stubs["score"], (taker["score"], stubs["score"])
    assert [(t["name"], t["score"]) for t in taker["tests"]] == [
        (t["name"], t["score"]) for t in stubs["tests"]]
    assert "minimal-root" in taker["extra_data"]["isolation"], taker["extra_data"]
