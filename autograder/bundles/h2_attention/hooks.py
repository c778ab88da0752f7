"""H2's hooks: its evidence plugin (the attention-evidence file and the limitation) and the
misconceptions its checks diagnose (``autograder.assignments.plugins``)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from solutions.evidence import EVIDENCE_FILENAME, LIMITATION_PLACEHOLDER


class AttentionEvidence:
    """The attention-evidence file: verified, traced to the student's functions, scored."""

    file_name = EVIDENCE_FILENAME
    limitation_placeholder = LIMITATION_PLACEHOLDER

    def verify(self, path: Path | bytes, *, student_id: str | None, cohort: str | None) -> Any:
        from autograder.evidence import verify_evidence

        return verify_evidence(path, student_id=student_id, cohort=cohort)

    def provenance(self, report: Any, student: Any, *, student_id: str | None,
                   cohort: str | None, failed_functions: Collection[str],
                   charged_functions: Collection[str]) -> Any:
        from autograder.grading.provenance import check_provenance

        return check_provenance(report, student, student_id=student_id, cohort=cohort,
                                failed_functions=failed_functions,
                                charged_functions=charged_functions)

    def without_code(self, report: Any) -> Any:
        from autograder.grading.provenance import without_code

        return without_code(report)

    def part_scores(self, report: Any, provenance: Any) -> dict[str, Any]:
        from autograder.grading.evidence_parts import evidence_part_scores

        return evidence_part_scores(report, provenance)

    def ta_notes(self, report: Any) -> list[str]:
        return [f"evidence {finding.pointer or '(whole file)'}: {finding.ta_note}"
                for finding in report.findings if finding.ta_note]

    def warm_up(self) -> None:
        import autograder.evidence  # noqa: F401  (jsonschema)
        from autograder.evidence.notebook_echo import release_index

        release_index()  # the notebook's sentences a limitation must not repeat (read once)


evidence = AttentionEvidence()


def __getattr__(name: str) -> Any:
    if name == "misconceptions":  # read when first asked: the table imports NumPy
        from autograder.grading.misconceptions import MISCONCEPTIONS

        return MISCONCEPTIONS
    raise AttributeError(name)
