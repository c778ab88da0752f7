"""Gradescope's ``results.json`` for one graded submission.

The fields are Gradescope's documented ones: ``score``, ``execution_time``, ``output``,
``output_format``, ``visibility``, ``stdout_visibility`` and ``tests[]`` (``name``,
``score``, ``max_score``, ``status``, ``output``, ``output_format``, ``tags``,
``visibility``); our own details stay in ``extra_data``, which Gradescope stores but
does not show (with ``extra_data.gradescope``: where the student id came from). A result
that needs a person gets one more test entry, ``NEEDS_A_PERSON``, worth nothing and
``hidden`` (Gradescope shows it to staff only), whose output says why. Texts are Markdown (``autograder.integrations.gradescope.markdown``) so
lists and function names render. No text can hold a hidden check's inputs: every message
was made safe where it entered the trusted side (``autograder.base.safe_text``).

When students see what the hidden checks reveal is the instructor's choice
(``hidden_visibility``, `gradescope build --hidden-visibility`, default ``after_due_date``):
a student may resubmit as often as they like, so a check's name, points and diagnosis shown
at once are an oracle to resubmit against. That value goes on every graded entry (the
hidden checks', and the evidence parts', which the grader's own verifier scores) and on the
top level, which holds the total made of them and the summary that says it. One entry,
``your submission`` (worth nothing), is ``visible`` whatever is chosen (a test's own
visibility overrides the top level's): whether the notebook ran, or why it could not be
graded (the student's own file, to fix before the due date), the notes on the upload and
its cells, and when the rest appears. Nothing in it comes from a hidden check.

The course-side ``results.json`` (``autograde``) stays plain text: it is read back to
resume a batch, and Markdown would not round-trip.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.integrations.gradescope.markdown import bullet_list, escape
from autograder.integrations.gradescope.zip_config import (
    AFTER_DUE_DATE,
    AFTER_PUBLISHED,
    DEFAULT_VISIBILITY,
    HIDDEN,
    VISIBLE,
)
from autograder.results import note_codes
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    SubmissionResult,
    write_atomically,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment

MARKDOWN = "md"
NEEDS_A_PERSON = "needs a person"
REVIEW_TAG = "review"
SUBMISSION_ENTRY = "your submission"  # the entry shown at once, whatever the visibility
SUBMISSION_TAG = "submission"
# When the hidden checks' results appear, as the always-visible entry says it.
WHEN_SHOWN = {
    VISIBLE: "are below",
    AFTER_DUE_DATE: ("appear here after the due date (after the late due date, if the "
                     "assignment has one)"),
    AFTER_PUBLISHED: "appear here once your instructor publishes the grades",
    HIDDEN: "are not shown here: your instructor will tell you your grade",
}


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


def submission_entry(result: SubmissionResult, assignment: Assignment,
                     hidden_visibility: str) -> dict[str, Any]:
    """The entry shown at once whatever ``hidden_visibility``: whether the notebook ran, or
    why it could not be graded, the notes on the upload and its cells (``OWN_FILES``), and
    when the hidden checks' results appear. A student can fix their own file before the
    due date; nothing here comes from a hidden check (no name, points, diagnosis or total)."""
    if result.status == STATUS_UNGRADABLE:
        lines = [escape(f"Your notebook could not be graded: {result.reason}")]
    elif result.status == STATUS_ERROR:
        lines = ["The grader failed on its own (not your doing): your submission will be "
                 "graded again."]
    else:
        lines = ["Your notebook was received and ran, and the hidden checks graded it."]
    own = [note.text for note in result.notes
           if note.code in note_codes.OWN_FILES and note.text not in lines[0]]
    if own:
        lines.append(bullet_list(own, assignment.function_parts))
    if result.late:
        lines.append(escape(f"Submitted late: {result.submitted_at}, due {result.due}."
                            + (f" The late policy ({result.late_policy}) applies to your "
                               "total." if result.late_policy else "")))
    lines.append(escape(
        "The checks in your notebook are its visible checks: run them yourself, the grader "
        "does not. The hidden checks' results (each check, its points and your total) "
        f"{WHEN_SHOWN[hidden_visibility]}."))
    return {"name": SUBMISSION_ENTRY, "score": 0.0, "max_score": 0.0,
            "status": "passed" if result.status == STATUS_GRADED else "failed",
            "output": "\n\n".join(lines), "output_format": MARKDOWN,
            "tags": [SUBMISSION_TAG], "visibility": VISIBLE}


def review_entry(review: Sequence[str]) -> dict[str, Any]:
    """The staff-only test entry of a result that needs a person: why, one item a line."""
    return {"name": NEEDS_A_PERSON, "score": 0.0, "max_score": 0.0, "status": "failed",
            "output": bullet_list(review), "output_format": MARKDOWN, "tags": [REVIEW_TAG],
            "visibility": HIDDEN}


def gradescope_results(result: SubmissionResult, seconds: float, assignment: Assignment,
                       *, gradescope: dict[str, Any] | None = None,
                       review: Sequence[str] = (),
                       hidden_visibility: str = DEFAULT_VISIBILITY) -> dict[str, Any]:
    """``result`` (graded for ``assignment``) as Gradescope's results.json (``seconds``: the
    grading time; ``gradescope``: what Gradescope's metadata gave, for ``extra_data``;
    ``review``: why a person must look, when ``result`` needs one; ``hidden_visibility``:
    when students see the graded entries and the total, see the module docstring)."""
    data = result.to_gradescope()
    tests = [submission_entry(result, assignment, hidden_visibility)]
    for test, entry in zip(result.tests, data["tests"], strict=True):
        tests.append({
            **entry,
            "output": bullet_list(test.output.splitlines(), assignment.function_parts),
            "output_format": MARKDOWN,
            "visibility": hidden_visibility,
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
        # The total is made of the hidden checks, and the summary says it: both wait too.
        "visibility": hidden_visibility,
        "stdout_visibility": "hidden",  # the grader's log is for the instructor
        "tests": tests,
        "extra_data": extra,
    }


def save(result: SubmissionResult, seconds: float, path: Path, assignment: Assignment, *,
         gradescope: dict[str, Any] | None = None, review: Sequence[str] = (),
         hidden_visibility: str = DEFAULT_VISIBILITY) -> None:
    """Write Gradescope's results.json atomically (see ``gradescope_results``)."""
    text = json.dumps(gradescope_results(result, seconds, assignment, gradescope=gradescope,
                                         review=review, hidden_visibility=hidden_visibility),
                      indent=2, allow_nan=False)
    write_atomically(path, text + "\n")
