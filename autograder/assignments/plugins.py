"""What a bundle's ``hooks.py`` may provide: the engine calls these, never a bundle by name.

``evidence``: an ``EvidencePlugin``, for an assignment whose students save an evidence file
(an assignment without one has no evidence part and needs none).
``misconceptions``: a mapping from a diagnosis code (``CheckFailure(diagnoses=...)``) to the
sentence that explains it to a student; the engine's own codes are added to it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from autograder.grading.scoring import PartScore
    from autograder.grading.student import Student


class EvidencePlugin(Protocol):
    """Grades the evidence file a notebook saves (and a limitation written in it)."""

    file_name: str  # what the notebook writes beside itself
    limitation_placeholder: str  # the limitation cell's starting text (not a limitation)
    max_bytes: int  # a larger file is refused unread (and not sent to a cluster worker)

    def verify(self, path: Path | bytes, *, student_id: str | None,
               cohort: str | None) -> Any:
        """The file checked on its own (schema, recomputation); never raises."""

    def provenance(self, report: Any, student: Student, *, student_id: str | None,
                   cohort: str | None, failed_functions: Collection[str],
                   charged_functions: Collection[str]) -> Any:
        """Which of the file's numbers the submitted functions reproduce (in the sandbox)."""

    def without_code(self, report: Any) -> Any:
        """The same when no code could run: nothing is reproduced."""

    def part_scores(self, report: Any, provenance: Any) -> dict[str, PartScore]:
        """The evidence (and limitation) parts' scores."""

    def ta_notes(self, report: Any) -> list[str]:
        """What only the teaching team may read (e.g. whose inputs a copied file holds)."""

    def warm_up(self) -> None:
        """Import and read once what every submission needs, before processes fork."""

    def read(self, path: Path) -> dict | None:
        """The file's content read safely, as plain data (None: missing or unreadable)."""

    def describe(self, report: Any) -> str:
        """The report as text a student or TA reads (``verify-evidence``)."""

    def plain(self, report: Any) -> dict:
        """The report as JSON data (``verify-evidence --json``)."""

    def exit_code(self, report: Any) -> int:
        """0 for a file that is ok, 1 for an invalid one, 2 for a missing or unreadable one."""


Misconceptions = Mapping[str, str]
