"""Issue 5, "Proof": hostile submissions in one batch, each with its expected outcome,
and the other students' results exactly what they would be alone.

One batch (the session fixture ``hostile_batch``) grades every submission of
``conftest.HOSTILE`` plus the controls; each test below reads its results.
"""

from __future__ import annotations

import csv
import re
import sqlite3

import pytest

from autograder.results.result import STATUS_ERROR, STATUS_UNGRADABLE, load
from autograder.spec import REPO
from tests.sandbox.hostile.hostile_cases import (
    CONTROLS,
    EVIDENCE_PARTS,
    FUNCTION_PARTS,
    HOSTILE,
    NOTEBOOK,
    SITE_PACKAGES,
    VICTIM,
    Hostile,
    HostileBatch,
    all_students,
    student_of,
)
from tests.support.h2 import SPEC
from tests.support.said import said

ASSIGNMENT = SPEC.name

pytestmark = pytest.mark.slow


def _texts(result) -> list[str]:
    return [result.reason, *(note.text for note in result.notes)]


def _describe(result) -> str:
    lost = {
        p.part: (p.points, p.max_points, said(p.messages))
        for p in result.parts
        if p.points < p.max_points
    }
    return f"status={result.status} reason={result.reason!r} notes={result.notes} lost={lost}"


def test_hostile_case(hostile_batch: HostileBatch, hostile: Hostile) -> None:
    """The status, the points of every part and the notes the table expects."""
    result = hostile_batch.result(student_of(hostile))
    expect = hostile.expect
    seen = _describe(result)
    assert result.status == expect.status, seen
    for part in result.parts:
        if part.points < part.max_points:
            assert said(part.messages), f"{part.part} lost points without a message; {seen}"
        if part.part in expect.unsure:
            continue
        if part.part in expect.zero:
            assert part.points == 0, f"{part.part} should score 0; {seen}"
        elif part.part in expect.lost:
            assert part.points < part.max_points, f"{part.part} should lose points; {seen}"
        else:
            assert part.points == part.max_points, f"{part.part} should be full; {seen}"
    for name in expect.reviewed:
        assert result.part(name).needs_review and result.needs_review, (
            f"{name} should be left to a person (needs_review); {seen}")
    for pattern in expect.notes:
        assert any(re.search(pattern, text) for text in _texts(result)), (pattern, seen)
    for part, pattern in expect.messages.items():
        messages = said(result.part(part).messages)
        assert any(re.search(pattern, m) for m in messages), (part, pattern, messages)
    if expect.reason:
        assert re.search(expect.reason, result.reason), (expect.reason, result.reason)


def test_every_student_graded_with_a_reason_for_every_lost_point(
    hostile_batch: HostileBatch,
) -> None:
    results = {r.student: r for r in hostile_batch.summary.results}
    assert sorted(results) == sorted(all_students())
    assert sorted(hostile_batch.summary.graded) == sorted(all_students())
    problems = []
    for result in results.values():
        if result.status == STATUS_ERROR:
            problems.append(f"{result.student}: grader error: {result.reason}")
        for part in result.parts:
            if part.points < part.max_points and not said(part.messages):
                problems.append(f"{result.student}: {part.part} lost points without a message")
        if result.status != "graded" and not result.reason:
            problems.append(f"{result.student}: {result.status} without a reason")
    known = {student_of(case) for case in HOSTILE if case.bug}
    unexpected = [p for p in problems if p.split(":")[0] not in known]
    assert not unexpected, "\n".join(unexpected)


def _comparable(result) -> dict:
    data = result.to_gradescope()
    data["extra_data"].pop("seconds")
    # Hash of the grader's sources, taken when a process first grades: other people may
    # edit the checkout while this file runs. Not something a submission can change.
    data["extra_data"].pop("grading_key")
    return data


def test_controls_are_exactly_what_they_are_alone(
    hostile_batch: HostileBatch, controls_alone: dict
) -> None:
    """Parts, points, messages, tests, notes: identical to a batch of that student alone."""
    for student in CONTROLS:
        in_batch = hostile_batch.result(student)
        alone = controls_alone[student]
        assert _comparable(in_batch) == _comparable(alone), student
        saved = load(hostile_batch.root / "autograded" / student / ASSIGNMENT / "results.json")
        assert saved is not None and _comparable(saved) == _comparable(alone), student


def test_controls_score_as_expected(hostile_batch: HostileBatch) -> None:
    for student in CONTROLS:
        result = hostile_batch.result(student)
        assert result.status == "graded", _describe(result)
        assert result.notes == [], _describe(result)
        lost = {p.part for p in result.parts if p.points < p.max_points}
        if "bug" in student:
            # Its evidence file is the reference's, which its code does not reproduce.
            assert "stable_softmax" in lost and lost <= {
                "stable_softmax",
                "scaled_dot_product_attention",
                "value_intervention",
                "evidence",
            }, _describe(result)
        else:
            assert lost == set(), _describe(result)
            assert result.score == result.max_score == 100


def test_no_process_of_a_submission_is_left(hostile_batch: HostileBatch) -> None:
    """Fork loops, daemons that left the session, SIGTERM-ignoring children: all gone."""
    assert hostile_batch.leftovers == []


def test_grader_files_are_unchanged_by_submissions(hostile_batch: HostileBatch) -> None:
    root = hostile_batch.root
    marker = hostile_batch.ctx.marker
    for name, content in hostile_batch.before.items():
        path = {
            "SENTINEL": root / "SENTINEL",
            "victim notebook": root / "submitted" / VICTIM / ASSIGNMENT / NOTEBOOK,
        }[name]
        assert path.read_bytes() == content, name
    assert not (REPO / "autograder" / "bundles" / "h2_attention" / "checks" / f"zz_{marker}.txt").exists()
    assert not (SITE_PACKAGES / f"zz_{marker}.txt").exists()

    results = {r.student: r for r in hostile_batch.summary.results}
    # Every results.json is the batch's own result (none was overwritten by a submission).
    for student, result in results.items():
        if result.status == STATUS_ERROR:
            continue  # not saved on purpose: regraded on the next run
        saved = load(root / "autograded" / student / ASSIGNMENT / "results.json")
        assert saved is not None and saved.to_gradescope() == result.to_gradescope(), student

    # grades.csv: one row per student, as graded.
    with (root / "grades.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert sorted(rows) == sorted(results)
    for student, result in results.items():
        assert rows[student]["total"] == result.total_text(), student
        assert rows[student]["status"] == result.status, student

    # gradebook.db: a valid nbgrader gradebook with exactly the batch's scores.
    with sqlite3.connect(root / "gradebook.db") as db:
        tables = {name for (name,) in db.execute("select name from sqlite_master")}
        assert "hacked" not in tables
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student, result in results.items():
            if result.status == STATUS_ERROR:
                continue
            if result.status == STATUS_UNGRADABLE:  # no grade: nbgrader would score it 0
                assert student not in {s.id for s in gradebook.students}, student
                continue
            for part in result.parts:
                grade = gradebook.find_grade(SPEC.part(part.part).grade_cell, ASSIGNMENT, ASSIGNMENT, student)
                assert grade.auto_score == part.points, (student, part.part)


def test_hung_cell_is_named_like_a_raising_cell(hostile_batch: HostileBatch) -> None:
    """Both notes name a cell as the student finds it in Jupyter (which numbers no cells):
    by its first line (``cells.cell_name``)."""
    raising = hostile_batch.result(student_of(_case("sys_exit_cells")))
    hanging = hostile_batch.result(student_of(_case("loop_top_level")))
    assert any("the code cell that starts `import sys` raised SystemExit" in n
               for n in said(raising.notes)), raising.notes
    assert any("the code cell that starts `while True:` was skipped" in n
               for n in said(hanging.notes)), hanging.notes
    assert not any(re.search(r"notebook cell \d", n) for n in said(raising.notes + hanging.notes))


def _case(name: str) -> Hostile:
    return next(case for case in HOSTILE if case.name == name)


def test_table_is_consistent() -> None:
    """Expectations name real parts; a ``zero`` part is also ``lost``."""
    parts = set(FUNCTION_PARTS) | set(EVIDENCE_PARTS)
    for case in HOSTILE:
        expect = case.expect
        assert set(expect.zero) <= set(expect.lost), case.name
        assert set(expect.lost) | set(expect.unsure) | set(expect.messages) | set(expect.reviewed) <= parts, case.name
