"""run-autograder follows Gradescope's contract: submission folder in, results.json out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name

pytestmark = pytest.mark.slow


def test_run_autograder_writes_gradescope_results(tmp_path, course_factory):
    course_factory(tmp_path / "course", {"s042": "softmax_wrong_axis"})
    submission = tmp_path / "course" / "submitted" / "s042" / ASSIGNMENT
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"sid": "s042", "email": "s042@example.org"}]}))
    results = tmp_path / "results" / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "run-autograder", "--submission", str(submission),
         "--results", str(results), "--metadata", str(metadata)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(results.read_text())
    assert data["max_score"] == sum(SPEC.part_points.values())
    assert 0 < data["score"] < data["max_score"]  # the bug costs points, the rest is earned
    checks = [test for test in data["tests"] if test["name"] != "your submission"]
    assert {test["tags"][0] for test in checks} == set(SPEC.part_points)
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["output"] for t in failed)  # every lost point is explained
    assert data["extra_data"]["student"] == "s042"  # from the metadata: the evidence matched
    evidence = data["extra_data"]["parts"][-2]
    assert evidence["part"] == "evidence"
    # The sample's own (buggy) softmax gives NaN on the masked case: the notebook's helper
    # records the NaN (issue 26) and the sections it touches are carried forward, since
    # stable_softmax already paid for the bug: the evidence part loses nothing, and says why.
    assert evidence["points"] == SPEC.part_points["evidence"]
    carried = [m for m in evidence["messages"] if m["carried"]]  # said as a field
    assert any("your function returned NaN here" in m["text"] for m in carried)
    assert not any("student id" in message["text"] for message in evidence["messages"])
    assert (results.parent / "feedback.html").exists()
