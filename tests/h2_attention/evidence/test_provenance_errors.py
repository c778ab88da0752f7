"""A mistake costs points once, even when it raises (issue 26): a section the evidence cell
recorded as ``{"error": ...}`` is carried forward when the student's own functions raise
that error and the function the bug lives in paid for it in its own part, while working
there at least in part; never for an unimplemented stub, and never for an error the
functions do not raise (a forged or stale file: 0, and a TA looks).

Students run in-process here (``InProcessStudent``); ``tests/h2_attention/evidence/test_provenance_sandbox.py``
grades a notebook with such a bug in the real sandbox.
"""

from __future__ import annotations

import json

import pytest

import solutions
from autograder.base.safe_text import INPUTS_HIDDEN
from autograder.bundles.h2_attention.evidence import EvidenceReport, verify_evidence
from autograder.bundles.h2_attention.evidence_parts import evidence_part_scores
from autograder.bundles.h2_attention.provenance import (
    Provenance,
    check_provenance,
    error_candidates,
)
from autograder.bundles.h2_attention.raised_sections import error_text, same_error
from autograder.grading.student import StudentError
from solutions.evidence import build_evidence
from tests.support.corpus import (
    buggy_cases,
    grade_source,
    override_source,
    reference_source,
    stub_source,
)
from tests.support.evidence_files import honest_evidence
from tests.support.h2 import SPEC
from tests.support.in_process import InProcessStudent
from tests.support.said import said

STUDENT = "s-raise"
COHORT = "c1"
LIMITATION = (
    "Attention weights are not a causal explanation of the output: a key can receive a large "
    "weight while its value vector barely differs from the others, so removing it changes "
    "little, and residual paths and later layers also shape what the model does."
)
CASES = {case.name: case.source for case in buggy_cases()}
FULL = SPEC.part("evidence").points
IDENTITY = SPEC.evidence_sections["identity"]
# stable_softmax raising one fixed error on every input: it runs no better than a stub.
FIXED_ERROR = override_source('''
def stable_softmax(scores, mask=None, temperature=1.0):
    raise ValueError("softmax is broken")
''')


def failed(source: str) -> set[str]:
    return {part for part, score in grade_source(source).items() if score.points == 0}


def charged(source: str) -> set[str]:
    """As grade_submission passes them: lost points, or carried a block's bug forward."""
    return {part for part, score in grade_source(source).items()
            if score.points < score.max_points or any(c.carried_from for c in score.checks)}


def grade(source: str, data: dict, charged_functions: set[str] | None = None
          ) -> tuple[EvidenceReport, Provenance]:
    report = verify_evidence(json.dumps(data, allow_nan=False).encode(), student_id=STUDENT,
                             cohort=COHORT)
    provenance = check_provenance(
        report, InProcessStudent(source), student_id=STUDENT, cohort=COHORT,
        failed_functions=failed(source),
        charged_functions=charged(source) if charged_functions is None else charged_functions)
    return report, provenance


def honest(source: str) -> dict:
    return honest_evidence(source, STUDENT, LIMITATION, COHORT)


def errors_in(data: dict) -> set[str]:
    return {name for name in SPEC.evidence_sections
            if isinstance(data.get(name), dict) and "error" in data[name]}


@pytest.mark.parametrize(("name", "culprit", "sections"), [
    ("scores_transposed", "attention_scores",
     {"hand_example", "masked_case", "parity", "intervention"}),
    ("softmax_missing_keepdims", "stable_softmax", {"masked_case", "parity", "intervention"}),
])
def test_a_bug_that_raises_costs_points_in_its_own_part_only(name, culprit, sections):
    source = CASES[name]
    data = honest(source)
    assert errors_in(data) == sections  # the notebook's own file records the errors
    report, provenance = grade(source, data)
    assert report.points["evidence"] == FULL - sum(SPEC.evidence_sections[s] for s in sections)
    assert set(provenance.carried) == sections and provenance.findings == ()
    assert {entry.section for entry in provenance.raised} == sections
    part = evidence_part_scores(report, provenance)["evidence"]
    assert (part.points, part.needs_review) == (FULL, False)
    assert all(m.carried and m.pointer for m in part.messages)  # a field, not words
    for message in said(part.messages):  # which function raised, and that its part paid
        assert "raised ValueError here" in message
        assert f"`{culprit}` already lost points for this bug in its own part" in message
    assert not any("could not compute this section" in m for m in said(part.messages))


def test_the_note_names_the_block_that_raised_and_the_one_that_caused_it():
    """attention_scores transposed: attention_context is what raises on the hand example,
    on the scores attention_scores returned; only attention_scores lost points."""
    report, provenance = grade(CASES["scores_transposed"], honest(CASES["scores_transposed"]))
    hand = next(e for e in provenance.raised if e.section == "hand_example")
    assert (hand.raiser, hand.culprits) == ("attention_context", ("attention_scores",))
    assert hand.note().startswith("your `attention_context` raised ValueError here, given what "
                                  "your `attention_scores` returned, in the hand example")


def test_the_evidence_cells_own_error_is_carried_from_the_function_whose_result_it_refused():
    """The pair in the wrong order: the parity section stops in the evidence cell itself
    (it subtracts torch's context from what it takes for the context)."""
    source = CASES["sdpa_returns_weights_first"]
    data = honest(source)
    assert errors_in(data) == {"parity"}
    report, provenance = grade(source, data)
    assert "parity" in provenance.carried
    (entry,) = provenance.raised
    assert entry.by_cell and entry.culprits == ("scaled_dot_product_attention",)
    assert "the evidence cell stopped with ValueError here, on what your " \
           "`scaled_dot_product_attention` returned" in entry.note()


def test_unimplemented_stubs_earn_nothing_through_their_own_file():
    source = stub_source()
    data = honest(source)
    assert errors_in(data) == set(SPEC.evidence_sections) - {"identity"}
    assert all(data[s]["error"].startswith("NotImplementedError") for s in errors_in(data))
    report, provenance = grade(source, data)
    assert provenance.carried == () and [f.code for f in provenance.findings] == ["nothing_computed"]
    part = evidence_part_scores(report, provenance)["evidence"]
    # Not even the identity check (issue 42): no function of theirs computes anything.
    assert (part.points, part.needs_review) == (0, False)
    assert "nothing_computed" in [message.code for message in part.messages]


def test_a_block_that_raises_one_fixed_error_everywhere_carries_nothing():
    """Charged, but it earned nothing and computes nothing: no transfer to make."""
    data = honest(FIXED_ERROR)
    assert errors_in(data) == {"masked_case", "parity", "intervention", "hand_example"}
    assert "stable_softmax" in charged(FIXED_ERROR) and "stable_softmax" in failed(FIXED_ERROR)
    report, provenance = grade(FIXED_ERROR, data)
    assert provenance.carried == () and provenance.findings == ()
    assert evidence_part_scores(report, provenance)["evidence"].points == IDENTITY


def test_an_error_is_carried_only_from_a_function_that_was_charged():
    source = CASES["softmax_missing_keepdims"]
    report, provenance = grade(source, honest(source), charged_functions=set())
    assert provenance.carried == () and provenance.findings == ()
    lost = sum(SPEC.evidence_sections[s] for s in ("masked_case", "parity", "intervention"))
    assert evidence_part_scores(report, provenance)["evidence"].points == FULL - lost


def test_a_forged_error_scores_0_and_goes_to_a_ta():
    """Correct functions compute the masked case: an error written there is not theirs."""
    data = build_evidence(vars(solutions), STUDENT, LIMITATION, COHORT)
    data["masked_case"] = {"error": "ValueError: operands could not be broadcast together"}
    report, provenance = grade(reference_source(), data)
    assert error_candidates(report) == ["masked_case"]
    assert provenance.carried == () and provenance.disproved == ("masked_case",)
    (finding,) = provenance.findings
    assert finding.code == "provenance_error_not_raised" and finding.severity == "error"
    assert "they compute it without an error" in finding.message
    part = evidence_part_scores(report, provenance)["evidence"]
    assert part.points == FULL - SPEC.evidence_sections["masked_case"] and part.needs_review
    assert not any("could not compute this section" in m for m in said(part.messages))


def test_another_error_than_the_one_the_functions_raise_is_not_carried():
    """A stale file: the bug raises, but not what the file says."""
    source = CASES["softmax_missing_keepdims"]
    data = honest(source)
    data["parity"] = {"error": "TypeError: unsupported operand"}
    report, provenance = grade(source, data)
    assert "parity" not in provenance.carried and provenance.disproved == ("parity",)
    assert "they do not raise that error there" in provenance.findings[0].message
    part = evidence_part_scores(report, provenance)["evidence"]
    assert part.points == FULL - SPEC.evidence_sections["parity"] and part.needs_review


def test_an_error_matches_as_the_evidence_cell_trims_it():
    long = StudentError("raised", "ValueError", "x" * 400, ("Exception",), "stable_softmax")
    assert same_error(error_text("ValueError", "x" * 400), long)
    assert not same_error("TypeError: " + "x" * 289, long)
    hidden = StudentError("raised", "ValueError", INPUTS_HIDDEN, ("Exception",), "f")
    assert same_error("ValueError: got 0.125 and 0.375", hidden)  # the sandbox hid the numbers
    assert not same_error("TypeError: got 0.125", hidden)
    assert not same_error("ValueError", StudentError("timeout", message="stopped", function="f"))
