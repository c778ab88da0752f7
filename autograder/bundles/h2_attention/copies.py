"""Whose inputs an attention-evidence file holds (the instructor's report names copied files).

Each student's masked case and intervention are drawn from a seed of cohort and student id
(``solutions.evidence.evidence_inputs``), so the inputs in a file name their owner; the
report compares them across the cohort (``autograder.report.evidence_copies``).
"""

from __future__ import annotations

from autograder.report.evidence_copies import StatedInputs

from .sections import INPUT_FIELDS, expected_input  # as the verifier's identity check compares


def stated_inputs(data: dict) -> StatedInputs | None:
    """The per-student inputs a file states (sections that hold an error state none), with
    the student id and cohort written in it; None when it states no input."""
    stated = {}
    for section, name in INPUT_FIELDS:
        values = data.get(section)
        if isinstance(values, dict) and name in values:
            stated[(section, name)] = values[name]
    if not stated:
        return None
    cohort = data.get("cohort")
    return StatedInputs(stated, str(data.get("student_id", "")),
                        cohort if isinstance(cohort, str) and cohort else None)


def expected_inputs(student: str, cohort: str | None) -> dict[tuple[str, str], object]:
    """What a file of ``student`` in ``cohort`` must state."""
    from solutions.evidence import evidence_inputs

    inputs = evidence_inputs(student, cohort)
    return {(section, name): expected_input(inputs, section, name)
            for section, name in INPUT_FIELDS}
