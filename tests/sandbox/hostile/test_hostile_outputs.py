"""What the hostile batch wrote is safe to open (issue 10): every file, page and CSV cell is
valid text with nothing of the grading machine, the TA's environment or the hidden inputs."""

from __future__ import annotations

import csv
import json
import re

import pytest

from autograder.base.safe_text import FORMULA_STARTS, INPUTS_HIDDEN, MAX_FRACTIONS
from autograder.results.result import STATUS_ERROR
from autograder.spec import REPO
from tests.sandbox.hostile.hostile_cases import HOSTILE, HostileBatch, student_of
from tests.support.h2 import SPEC
from tests.support.said import said

pytestmark = pytest.mark.slow
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _case(name: str):
    return next(case for case in HOSTILE if case.name == name)


def _student_texts(result) -> list[str]:
    texts = [result.reason, *said(result.notes)]
    for part in result.parts:
        texts += said(part.messages)
    texts += [test.output for test in result.tests]
    return texts


def test_every_student_has_results_and_a_feedback_page(hostile_batch: HostileBatch) -> None:
    for result in hostile_batch.summary.results:
        if result.status == STATUS_ERROR:
            continue
        folder = hostile_batch.root / "autograded" / result.student / SPEC.name
        json.loads((folder / "results.json").read_text(encoding="utf-8"))
        page = (folder / "feedback.html").read_text(encoding="utf-8")
        assert result.student in page


def test_grades_csv_is_clean_text(hostile_batch: HostileBatch) -> None:
    raw = (hostile_batch.root / "grades.csv").read_bytes().decode("utf-8")  # strict UTF-8
    assert not CONTROL.search(raw.replace("\n", "")), "a control character reached grades.csv"
    with (hostile_batch.root / "grades.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            for column, value in row.items():
                assert not value.startswith(FORMULA_STARTS), (row["student"], column, value)
    bad = hostile_batch.result(student_of(_case("bad_strings")))
    assert "\ud800" not in bad.reason and "\x1b" not in bad.reason and "\x00" not in bad.reason


def test_nothing_of_the_grading_machine_reaches_a_student(hostile_batch: HostileBatch) -> None:
    private = [str(hostile_batch.root), str(REPO), hostile_batch.token]
    for result in hostile_batch.summary.results:
        for text in _student_texts(result):
            for secret in private:
                assert secret not in text, (result.student, secret, text)


def test_hidden_inputs_are_not_quoted_back(hostile_batch: HostileBatch) -> None:
    leaks = hostile_batch.result(student_of(_case("leaks")))
    softmax = leaks.part("stable_softmax")
    assert any(INPUTS_HIDDEN in message for message in said(softmax.messages)), said(softmax.messages)
    # Quoting the lecture's public hand example is harmless; an array of hidden-check values
    # (many fractions, even computed ones like a nested function's scores) never shows.
    for text in _student_texts(leaks):
        assert len(re.findall(r"\d\.\d", text)) <= MAX_FRACTIONS, text
