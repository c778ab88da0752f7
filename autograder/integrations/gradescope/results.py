"""Gradescope's ``results.json`` for one graded submission.

The fields are Gradescope's documented ones: ``score``, ``execution_time``, ``output``,
``output_format``, ``visibility``, ``stdout_visibility`` and ``tests[]`` (``name``,
``score``, ``max_score``, ``status``, ``output``, ``output_format``, ``tags``,
``visibility``); our own details stay in ``extra_data``, which Gradescope stores but
does not show (with ``extra_data.gradescope``: where the student id came from). A result
that needs a person gets one more test entry, ``NEEDS_A_PERSON``, worth nothing and
``hidden`` (Gradescope shows it to staff only), whose output says why. Texts are Markdown (``autograder.integrations.gradescope.markdown``) so
lists and function names render. No text can hold a hidden check's inputs: every message
was made safe where it entered the trusted side (``autograder.results.safe_text``), so
whichever visibility an instructor picks shows nothing more.

The course-side ``results.json`` (``autograde``) stays plain text: it is read back to
resume a batch, and Markdown would not round-trip.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.integrations.gradescope.markdown import bullet_list, escape
from autograder.results.result import SubmissionResult, write_atomically

if TYPE_CHECKING:
    from autograder.assignments import Assignment

MARKDOWN = "md"
VISIBLE = "visible"  # every test shows as soon as the submission is graded
HIDDEN = "hidden"  # staff only
NEEDS_A_PERSON = "needs a person"
REVIEW_TAG = "review"


def summary_markdown(result: SubmissionResult, assignment: Assignment) -> str:
    """The top of the results page: score, why it is not graded, the notes (the
    assignment's function names set as code)."""
    lines = [f"**{result.score:g} / {result.max_score:g}**"]
    if result.late:
        late = f"Submitted late: {result.submitted_at}, due {result.due}."
        if result.late_penalty:
            late += (f" Late penalty: −{result.late_penalty:g} of {result.parts_score:g} "
                     f"points ({result.late_policy}).")
        lines.append(escape(late))
    notes = [note.text for note in result.notes]
    if result.reason and result.reason != "; ".join(notes):  # else the notes say it
        lines.append(escape(result.reason))
    if notes:
        lines.append(bullet_list(notes, assignment.function_parts))
    return "\n\n".join(lines)


def review_entry(review: Sequence[str]) -> dict[str, Any]:
    """The staff-only test entry of a result that needs a person: why, one item a line."""
    return {"name": NEEDS_A_PERSON, "score": 0.0, "max_score": 0.0, "status": "failed",
            "output": bullet_list(review), "output_format": MARKDOWN, "tags": [REVIEW_TAG],
            "visibility": HIDDEN}


def gradescope_results(result: SubmissionResult, seconds: float, assignment: Assignment,
                       *, gradescope: dict[str, Any] | None = None,
                       review: Sequence[str] = ()) -> dict[str, Any]:
    """``result`` (graded for ``assignment``) as Gradescope's results.json (``seconds``: the
    grading time; ``gradescope``: what Gradescope's metadata gave, for ``extra_data``;
    ``review``: why a person must look, when ``result`` needs one)."""
    data = result.to_gradescope()
    tests = []
    for test, entry in zip(result.tests, data["tests"], strict=True):
        tests.append({
            **entry,
            "output": bullet_list(test.output.splitlines(), assignment.function_parts),
            "output_format": MARKDOWN,
            "visibility": VISIBLE,
        })
    if result.needs_review:
        tests.append(review_entry(review or [result.reason or "flagged for review"]))
    extra = data["extra_data"]
    if gradescope:
        extra = {**extra, "gradescope": gradescope}
    return {
        "score": data["score"],
        "max_score": data["max_score"],
        "execution_time": max(1, round(seconds)),
        "output": summary_markdown(result, assignment),
        "output_format": MARKDOWN,
        "test_output_format": MARKDOWN,
        "visibility": VISIBLE,
        "stdout_visibility": "hidden",  # the grader's log is for the instructor
        "tests": tests,
        "extra_data": extra,
    }


def save(result: SubmissionResult, seconds: float, path: Path, assignment: Assignment, *,
         gradescope: dict[str, Any] | None = None, review: Sequence[str] = ()) -> None:
    """Write Gradescope's results.json atomically (see ``gradescope_results``)."""
    text = json.dumps(gradescope_results(result, seconds, assignment, gradescope=gradescope,
                                         review=review), indent=2, allow_nan=False)
    write_atomically(path, text + "\n")
