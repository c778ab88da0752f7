"""A decision's basis (issue 51): version 3 is what the part judged (its own inputs and its
automatic verdict), so a resubmission that changes something else keeps the decision; the
bases decisions.json versions 1 and 2 recorded are still honoured while they hold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autograder.results import decisions
from autograder.results.decisions import Decisions, PartDecision, apply
from autograder.results.message import Message
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult


def _result(submission: str, inputs: str) -> SubmissionResult:
    part = PartResult("limitation", 4, 8, [Message("a person reads it", code="x")],
                      needs_review=True, inputs_hash=inputs)
    return SubmissionResult("s1", "hw", STATUS_GRADED, parts=[part], needs_review=True,
                            submission_hash=submission)


def _decided(entry_basis: str, result: SubmissionResult) -> PartResult:
    book = Decisions(Path("decisions.json"))  # never saved here
    book.parts[("s1", "limitation")] = PartDecision("s1", "limitation", 7, "ta", "2026-12-01",
                                                    "", entry_basis)
    return apply(result, book).part("limitation")


def test_a_version_3_basis_follows_the_parts_inputs_not_the_whole_submission():
    first = _result("a" * 64, "text-1")
    made = decisions.basis(first, first.parts[0])
    assert _decided(made, _result("b" * 64, "text-1")).points == 7  # a markdown cell added
    changed = _decided(made, _result("b" * 64, "text-2"))  # the limitation rewritten
    assert changed.points == 4 and changed.decided.startswith("not applied")
    other_verdict = _result("a" * 64, "text-1")
    other_verdict.parts[0] = replace(other_verdict.parts[0], points=5)
    assert _decided(made, other_verdict).points == 5  # the machine's verdict changed


def test_bases_of_versions_1_and_2_are_still_honoured_while_the_submission_holds():
    old = _result("a" * 64, "")  # graded before parts kept their inputs
    for made in (decisions.basis_1(old, old.parts[0]), decisions.basis_2(old, old.parts[0])):
        assert _decided(made, _result("a" * 64, "text-1")).points == 7
        assert _decided(made, _result("b" * 64, "text-1")).points == 4
