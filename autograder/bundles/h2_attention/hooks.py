"""H2's hooks: its evidence plugin (the attention-evidence file and the limitation) and the
misconceptions its checks diagnose (``autograder.assignments.plugins``).

The evidence modules import jsonschema and NumPy: each method imports what it needs when
first called, so loading the bundle stays cheap."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from solutions.evidence import EVIDENCE_FILENAME, LIMITATION_PLACEHOLDER


class AttentionEvidence:
    """The attention-evidence file: verified, traced to the student's functions, scored."""

    file_name = EVIDENCE_FILENAME
    limitation_placeholder = LIMITATION_PLACEHOLDER

    @property
    def max_bytes(self) -> int:
        """The largest file read at all (``evidence.loading.MAX_BYTES``)."""
        from .evidence.loading import MAX_BYTES

        return MAX_BYTES

    def verify(self, path: Path | bytes, *, student_id: str | None, cohort: str | None) -> Any:
        from .evidence import verify_evidence

        return verify_evidence(path, student_id=student_id, cohort=cohort)

    def provenance(self, report: Any, student: Any, *, student_id: str | None,
                   cohort: str | None, failed_functions: Collection[str],
                   charged_functions: Collection[str]) -> Any:
        from .provenance import check_provenance

        return check_provenance(report, student, student_id=student_id, cohort=cohort,
                                failed_functions=failed_functions,
                                charged_functions=charged_functions)

    def without_code(self, report: Any) -> Any:
        from .provenance import without_code

        return without_code(report)

    def part_scores(self, report: Any, provenance: Any) -> dict[str, Any]:
        from .evidence_parts import evidence_part_scores

        return evidence_part_scores(report, provenance)

    def ta_notes(self, report: Any) -> list[str]:
        return [f"evidence {finding.pointer or '(whole file)'}: {finding.ta_note}"
                for finding in report.findings if finding.ta_note]

    def warm_up(self) -> None:
        from . import evidence  # noqa: F401  (jsonschema)
        from .evidence.notebook_echo import release_index

        release_index()  # the notebook's sentences a limitation must not repeat (read once)

    def read(self, path: Path) -> dict | None:
        from .evidence.loading import load_evidence

        return load_evidence(path).data

    def describe(self, report: Any) -> str:
        from .evidence.report import format_report

        return format_report(report)

    def plain(self, report: Any) -> dict:
        return report.to_dict()

    def exit_code(self, report: Any) -> int:
        from .evidence.report import EXIT_CODES

        return EXIT_CODES[report.status]

    def stated_inputs(self, data: dict) -> Any:
        from .copies import stated_inputs

        return stated_inputs(data)

    def expected_inputs(self, student: str, cohort: str | None) -> dict:
        from .copies import expected_inputs

        return expected_inputs(student, cohort)


evidence = AttentionEvidence()


def __getattr__(name: str) -> Any:
    if name == "misconceptions":  # read when first asked: the table's module imports NumPy
        from .misconceptions import MISCONCEPTIONS

        return MISCONCEPTIONS
    raise AttributeError(name)
