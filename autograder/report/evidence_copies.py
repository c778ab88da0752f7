"""Evidence files that carry another student's inputs: whose file was copied.

Each student's masked case and intervention are drawn from a seed of cohort and
student id (``solutions.evidence.evidence_inputs``), so the inputs in a file name
their owner. The grader only knows the file is not the submitter's (its
``inputs_other_student`` finding costs the points); here, with the whole cohort
at hand, the report names the student whose inputs the file holds, for a person
to look at. Files are read with the grader's safe loader, as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from solutions.evidence import evidence_inputs

# The per-student inputs of a file, as the verifier's identity check compares them.
FIELDS = (
    ("masked_case", ("queries", "keys", "values", "mask")),
    ("intervention", ("queries", "keys", "values", "mask", "index", "new_value")),
)


@dataclass(frozen=True)
class CopiedEvidence:
    """A submitted evidence file whose inputs are not the submitter's."""

    student: str  # who submitted it
    owner: str | None  # whose inputs it holds (None: no student of this course)
    file_student_id: str  # the id written in the file


def stated_inputs(data: dict) -> dict[tuple[str, str], object]:
    """The per-student inputs a file states (sections that hold an error state none)."""
    stated = {}
    for section, names in FIELDS:
        values = data.get(section)
        if isinstance(values, dict):
            for name in names:
                if name in values:
                    stated[(section, name)] = values[name]
    return stated


def expected_inputs(student: str, cohort: str | None) -> dict[tuple[str, str], object]:
    """What a file of ``student`` in ``cohort`` must state."""
    inputs = evidence_inputs(student, cohort)
    case = inputs["masked_case"]
    expected: dict[tuple[str, str], object] = {}
    for section, names in FIELDS:
        for name in names:
            expected[(section, name)] = (inputs["intervention"][name]
                                         if name in ("index", "new_value") else case[name])
    return expected


def _matches(stated: dict, expected: dict) -> bool:
    return bool(stated) and all(expected.get(key) == value for key, value in stated.items())


def find_copies(folders: dict[str, Path], evidence_file: str, cohort: str | None = None
                ) -> list[CopiedEvidence]:
    """Every evidence file in ``folders`` (student -> submission folder) whose inputs are
    another student's. ``cohort``: the cohort the inputs were drawn for; None uses the
    cohort each file names, as the grader does when it is run without one."""
    from autograder.evidence.loading import load_evidence  # imports jsonschema: only here

    files: dict[str, dict] = {}
    for student, folder in folders.items():
        loaded = load_evidence(folder / evidence_file)
        if loaded.data is not None and stated_inputs(loaded.data):
            files[student] = loaded.data
    owners: dict[str | None, dict[str, dict]] = {}

    def expected(student: str, seed_cohort: str | None) -> dict:
        by_student = owners.setdefault(seed_cohort, {})
        if student not in by_student:
            by_student[student] = expected_inputs(student, seed_cohort)
        return by_student[student]

    copies = []
    for student, data in sorted(files.items()):
        seed_cohort = cohort or (data.get("cohort") if isinstance(data.get("cohort"), str)
                                 else None) or None
        stated = stated_inputs(data)
        if _matches(stated, expected(student, seed_cohort)):
            continue
        owner = next((other for other in sorted(folders) if other != student
                      and _matches(stated, expected(other, seed_cohort))), None)
        copies.append(CopiedEvidence(student, owner, str(data.get("student_id", ""))))
    return copies

