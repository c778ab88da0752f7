"""What a bundle's code may provide: the engine calls these, never a bundle by name.

Three modules of a bundle are read by the engine, each declared here as a ``Protocol`` of
every member it may define and its type (``autograder.assignments.hook_modules`` checks a
module against its declaration when it is first imported, and is the one place that reads
them):

``hooks.py`` (``Hooks``): ``evidence``, an ``EvidencePlugin``, for an assignment whose
students save an evidence file (an assignment without one has no evidence part and needs
none); it may also be a ``PerStudentInputs`` (the one optional group of members), when its
files' inputs are drawn per student. ``misconceptions``: a mapping from a diagnosis code
(``CheckFailure(diagnoses=...)``) to the sentence that explains it to a student; the
engine's own codes are added to it.
``authoring.py`` (``AuthoringHooks``): ``locked_cells()``, for ``sync-solutions``.
``samples`` (``SampleCohort``): ``build_sample_cohort(root, size, cohort)``, for the sample
cohort (``make demo``).

The engine never reads inside the plugin's report (what ``verify`` returns) or its
provenance (what ``provenance``/``without_code`` return): it hands each back to the plugin's
own methods. They are the plugin's types, named here as the type parameters ``Report`` and
``Provenance``; the engine's view is ``EvidencePlugin[Any, Any]``.
docs/adding-an-assignment.md documents each member with a tested example.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from autograder.grading.scoring import PartScore
    from autograder.grading.student import Student

Report = TypeVar("Report")  # what ``verify`` returns: the file checked on its own
Provenance = TypeVar("Provenance")  # what ``provenance`` and ``without_code`` return


class EvidencePlugin(Protocol[Report, Provenance]):
    """Grades the evidence file a notebook saves (and a limitation written in it).

    Every member is required. Attributes are read as values (a property will do); methods
    are called as below, keyword-only parameters by those names."""

    file_name: str  # what the notebook writes beside itself ("evidence.json")
    limitation_placeholder: str  # the limitation cell's starting text ("" without a limitation)
    max_bytes: int  # a larger file is refused unread (and not sent to a cluster worker)

    def verify(self, path: Path | bytes, *, student_id: str | None,
               cohort: str | None) -> Report:
        """The file checked on its own (its schema, its numbers), once per submission before
        any code runs; ``path`` may not exist (a missing file is a report, not an error);
        ``student_id``: None when the platform gave none. Never raises."""

    def provenance(self, report: Report, student: Student, *, student_id: str | None,
                   cohort: str | None, failed_functions: Collection[str],
                   charged_functions: Collection[str]) -> Provenance:
        """Which of the file's numbers the submitted functions reproduce, called once while
        the sandbox is open (``student.call(name, *args)`` runs a function there);
        ``failed_functions``: function parts that scored 0, ``charged_functions``: those that
        lost points or passed a check only by error carried forward."""

    def without_code(self, report: Report) -> Provenance:
        """The same when no code could run (a notebook that cannot be graded): nothing is
        reproduced."""

    def part_scores(self, report: Report, provenance: Provenance) -> dict[str, PartScore]:
        """The evidence and limitation parts' scores, called once per submission after the
        code parts: part name -> ``PartScore`` for every non-function part of the spec
        (``points`` at most the part's, ``messages`` of ``autograder.results.message.Message``
        whose ``pointer`` is ``/<section>/...`` to file it under a section, ``code`` a stable
        name of the finding, ``carried=True`` for points kept by error carried forward;
        ``needs_review=True`` on the limitation leaves it to a person)."""

    def ta_notes(self, report: Report) -> list[str]:
        """What only the teaching team may read (e.g. whose inputs a copied file holds);
        called after ``part_scores``; [] for none."""

    def warm_up(self) -> None:
        """Import and read once what every submission needs, before processes fork (once
        per grading session)."""

    def read(self, path: Path) -> dict | None:
        """The file's content read safely, as plain data (None: missing or unreadable);
        ``review list`` and the graded notebook show ``read(path)[<limitation part>]`` as the
        limitation's text, so the file must hold it under the limitation part's name."""

    def describe(self, report: Report) -> str:
        """The report as text a student or TA reads (``verify-evidence``)."""

    def plain(self, report: Report) -> dict:
        """The report as JSON data (``verify-evidence --json``)."""

    def exit_code(self, report: Report) -> int:
        """``verify-evidence``'s status: 0 for a file that is ok, 1 for an invalid one, 2 for
        a missing or unreadable one (the largest over the files checked)."""


@dataclass(frozen=True)
class StatedInputs:
    """The per-student inputs one evidence file states, and whom it says it is for."""

    inputs: Mapping[Hashable, object]  # input -> value, as the plugin names them
    student_id: str = ""  # the id written in the file
    cohort: str | None = None  # the cohort written in the file, if any


@runtime_checkable
class PerStudentInputs(Protocol):
    """Optional, both or neither: a plugin whose files' inputs are drawn per student (from a
    seed of cohort and student id), so the report can name whose inputs a copied file
    holds (``autograder.report.evidence_copies``). Without them no file is compared."""

    def stated_inputs(self, data: dict) -> StatedInputs | None:
        """The inputs ``data`` (what ``read`` returned) states; None when it states none."""

    def expected_inputs(self, student: str, cohort: str | None) -> Mapping[Hashable, object]:
        """The inputs a file of ``student`` must state, for ``cohort``'s seed."""


OPTIONAL_GROUPS: tuple[type, ...] = (PerStudentInputs,)
"""The optional groups of members an evidence plugin may provide, each all or none."""

Misconceptions = Mapping[str, str]
"""Diagnosis code -> the sentence that explains it to a student."""


class Hooks(Protocol):
    """``hooks.py``: what grading, review, the report and ``verify-evidence`` ask a bundle
    for. Every member is optional (``evidence`` is required with an evidence part); any
    other public value or function it defines is refused as a misspelt member."""

    evidence: EvidencePlugin[Any, Any]  # the evidence file's plugin (checked member by member)
    misconceptions: Misconceptions  # diagnosis code -> the sentence a student reads first


class AuthoringHooks(Protocol):
    """``authoring.py``: what ``sync-solutions`` asks a bundle for (optional, as the module
    is); any other public value or function it defines is refused as a misspelt member."""

    def locked_cells(self) -> Mapping[str, str]:
        """grade_id -> the exact text of a locked cell of the source notebook, made from the
        reference (``sync-solutions`` writes it there, ``--check`` compares it)."""


class SampleCohort(Protocol):
    """``samples`` (a module or a package): a bundle's sample students, for ``make demo``
    and ``python -m autograder.authoring.sample_cohort``. Required when the module exists;
    the module may hold anything else its samples need."""

    def build_sample_cohort(self, root: Path, size: int | None,
                            cohort: str | None) -> Mapping[str, str]:
        """Writes ``size`` submissions (None: one of each kind) into
        ``root/submitted/<student>/<assignment>/`` for ``cohort``; returns student id -> what
        the student is."""
