"""Evidence files that carry another student's inputs: whose file was copied.

An assignment whose evidence inputs are drawn per student (from a seed of cohort and
student id) has files whose inputs name their owner. The grader only knows a file is not
the submitter's (that costs its points); here, with the whole cohort at hand, the report
names the student whose inputs the file holds, for a person to look at.

What the inputs are is the assignment's to say, through its evidence plugin
(``autograder.assignments.plugins``): it reads a submitted file as data (``read``, the
grader's safe loader), ``stated_inputs(data)`` gives the ``StatedInputs`` of that data (None
when it states none), and ``expected_inputs(student, cohort)`` what a file of that student
must state (``PerStudentInputs``, optional, checked when the bundle loads). A plugin without
them has no per-student inputs: no file is compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.plugins import PerStudentInputs, StatedInputs

if TYPE_CHECKING:
    from autograder.assignments import Assignment


@dataclass(frozen=True)
class CopiedEvidence:
    """A submitted evidence file whose inputs are not the submitter's."""

    student: str  # who submitted it
    owner: str | None  # whose inputs it holds (None: no student of this course)
    file_student_id: str  # the id written in the file


def compares_inputs(assignment: Assignment) -> bool:
    """Whether ``assignment``'s evidence files carry per-student inputs to compare."""
    return isinstance(assignment.evidence, PerStudentInputs)  # checked when it loaded


def _matches(stated: Mapping, expected: Mapping) -> bool:
    return bool(stated) and all(expected.get(key) == value for key, value in stated.items())


def find_copies(folders: dict[str, Path], assignment: Assignment, cohort: str | None = None
                ) -> list[CopiedEvidence]:
    """Every evidence file in ``folders`` (student -> submission folder) whose inputs are
    another student's. ``cohort``: the cohort the inputs were drawn for; None uses the
    cohort each file names, as the grader does when it is run without one."""
    if not compares_inputs(assignment):
        return []
    plugin = assignment.evidence
    files: dict[str, StatedInputs] = {}
    for student, folder in folders.items():
        data = plugin.read(folder / assignment.evidence_file)
        stated = plugin.stated_inputs(data) if data is not None else None
        if stated is not None and stated.inputs:
            files[student] = stated
    owners: dict[str | None, dict[str, Mapping]] = {}

    def expected(student: str, seed_cohort: str | None) -> Mapping:
        by_student = owners.setdefault(seed_cohort, {})
        if student not in by_student:
            by_student[student] = plugin.expected_inputs(student, seed_cohort)
        return by_student[student]

    copies = []
    for student, stated in sorted(files.items()):
        seed_cohort = cohort or stated.cohort or None
        if _matches(stated.inputs, expected(student, seed_cohort)):
            continue
        owner = next((other for other in sorted(folders) if other != student
                      and _matches(stated.inputs, expected(other, seed_cohort))), None)
        copies.append(CopiedEvidence(student, owner, stated.student_id))
    return copies
