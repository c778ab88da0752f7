"""results.json written before the record had a format (format 1: the sample cohort graded
at 14fa055, in ``format_1/``) reads as it was graded: the same grade, flags, lateness and
the same texts Gradescope and grades.csv show; its messages' meaning becomes fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.results import migrate
from autograder.results.result import FORMAT, NewerRecord, SubmissionResult, load

FORMAT_1 = sorted((Path(__file__).parent / "format_1").glob("*.json"))


def test_the_migration_writes_the_current_format():
    assert migrate.FORMAT_2 == FORMAT


@pytest.mark.parametrize("path", FORMAT_1, ids=[p.stem for p in FORMAT_1])
def test_a_format_1_result_reads_as_graded(path):
    data = json.loads(path.read_text())
    assert "format" not in data["extra_data"]
    result = load(path)
    assert result is not None
    extra = data["extra_data"]
    assert (result.score, result.status, result.needs_review, result.late_label,
            [p.points for p in result.parts]) == (
        data["score"], extra["status"], extra["needs_review"],
        {True: "yes", False: "no"}.get(extra["late"], extra["late"]),
        [p["points"] for p in extra["parts"]])
    view = result.to_gradescope()
    assert [(t["name"], t["score"], t["output"]) for t in view["tests"]] == [
        (t["name"], t["score"], t["output"]) for t in data["tests"]]
    # An ungradable result has no total: its output says so (issue 51), the rest as it was.
    total = f"{data['score']:g} / {data['max_score']:g}"
    assert view["output"] == (data["output"] if result.has_total else data["output"].replace(
        total, f"no total ({result.status})", 1))
    assert [[m.flat() for m in p.messages] for p in result.parts] == [
        p["messages"] for p in extra["parts"]]
    assert [n.text for n in result.notes] == extra["notes"]
    again = SubmissionResult.from_gradescope(json.loads(json.dumps(view)))
    assert again == result  # and the migrated record round-trips in format 2


def test_meaning_becomes_fields():
    records = {p.stem: load(p) for p in FORMAT_1}
    carried = [m for p in records["s002-softmax-wrong-axis"].parts for m in p.messages
               if m.carried]
    assert carried and all(not m.text.startswith("carried forward") for m in carried)
    assert any(m.pointer.startswith("/") for p in records["s002-softmax-wrong-axis"].parts
               for m in p.messages)
    (reached,) = [n for n in records["s009-reads-reference"].notes if n.review]
    assert reached.code == "reached_out_cell"
    (stopped,) = records["s007-infinite-loop"].notes
    assert stopped.part == "stable_softmax"


def test_a_format_from_the_future_is_refused_not_misread_nor_regraded(tmp_path):
    """Issue 51: a newer grader's record is neither misread nor treated as absent (which
    regraded it, overwriting it with an older grader's): reading it raises NewerRecord."""
    data = json.loads(FORMAT_1[0].read_text())
    data["extra_data"]["format"] = FORMAT + 1
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    with pytest.raises(NewerRecord, match="newer grader"):
        load(path)
