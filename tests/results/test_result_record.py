"""results.json as the record's view (issue 51): an ungradable result's ``output`` says it has
no total (none of the other outputs gives it one); a record is read honestly: absent,
unreadable and written by a newer grader are three different answers."""

from __future__ import annotations

import json

import pytest

from autograder.results import result as record
from autograder.results.result import (
    FORMAT,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    save,
)
from tests.support.h2 import SPEC


def _result(status: str, points: float = 10) -> SubmissionResult:
    parts = [PartResult(part.name, 0, part.points) for part in SPEC.parts]
    parts[0].points = points
    return SubmissionResult("s1", SPEC.name, status, reason=f"{SPEC.notebook} is missing",
                            parts=parts)


def test_an_ungradable_results_json_says_it_has_no_total_and_why():
    output = _result(STATUS_UNGRADABLE).to_gradescope()["output"]
    assert output == f"no total (ungradable) — {SPEC.notebook} is missing"
    assert f"10 / {SPEC.total_points:g}" in _result(STATUS_GRADED).to_gradescope()["output"]


def test_load_tells_absent_unreadable_and_newer_apart(tmp_path):
    path = tmp_path / "results.json"
    assert record.read(path) is None and record.unreadable(path) == ""  # absent
    save(_result(STATUS_GRADED), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")  # truncated
    with pytest.raises(record.UnreadableRecord, match=str(path)):
        record.read(path)
    assert record.load(path) is None and "JSONDecodeError" in record.unreadable(path)
    data["extra_data"]["format"] = FORMAT + 1
    path.write_text(json.dumps(data), encoding="utf-8")
    for reader in (record.read, record.load):
        with pytest.raises(record.NewerRecord, match="newer grader"):
            reader(path)
