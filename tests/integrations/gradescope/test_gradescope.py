"""run-autograder follows Gradescope's contract: submission folder in, results.json out.

The contract is the engine's: the small ``vectors`` test bundle (``tests/bundles``, 10
points) is graded, with a ``norm`` that forgets its square root."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bundles import students

SECOND = students.assignment()  # vectors: dot, norm, normalize; 3 + 3 + 4 points

pytestmark = pytest.mark.slow


def test_run_autograder_writes_gradescope_results(tmp_path):
    submission = students.write_submission(
        tmp_path / "course" / "submitted" / "s042" / SECOND.name, bugs={"norm"})
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"sid": "s042", "email": "s042@example.org"}]}))
    results = tmp_path / "results" / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "run-autograder", SECOND.name, "--assignments",
         str(students.BUNDLES), "--submission", str(submission), "--results", str(results),
         "--metadata", str(metadata)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(results.read_text())
    assert data["max_score"] == sum(SECOND.part_points.values()) == 10
    assert 0 < data["score"] < data["max_score"]  # the bug costs points, the rest is earned
    checks = [test for test in data["tests"] if test["name"] != "your submission"]
    assert {test["tags"][0] for test in checks} == set(SECOND.part_points)
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["output"] for t in failed)  # every lost point is explained
    assert data["extra_data"]["student"] == "s042"  # from the metadata
    parts = {part["part"]: part for part in data["extra_data"]["parts"]}
    assert parts["norm"]["points"] == 0
    # The wrong norm gives wrong values to the normalize built on it: norm already paid for
    # the bug, so normalize is carried forward, loses nothing, and says why.
    normalize = parts["normalize"]
    assert normalize["points"] == SECOND.part_points["normalize"]
    carried = [m for m in normalize["messages"] if m["carried"]]  # said as a field
    assert any(m["carried_from"] == ["norm"] and "the bug costs points only in `norm`" in m["text"]
               for m in carried), normalize["messages"]
    assert (results.parent / "feedback.html").exists()
