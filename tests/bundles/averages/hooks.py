"""The averages bundle's hooks, written from docs/adding-an-assignment.md alone: the
misconception its check diagnoses, and its evidence plugin."""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.scoring import PartScore
from autograder.grading.student import Student, StudentError
from autograder.results.message import Message
from autograder.spec import load_spec

SPEC = load_spec(Path(__file__).with_name("assignment.toml"))
SECTION = "mean_example"  # the evidence part's one section: a top-level key of the file
PLACEHOLDER = "Replace this sentence with one limitation of the mean, in your own words."

misconceptions = {  # diagnosis code (what a check passes as diagnoses=) -> what a student reads
    "divides_by_n_minus_1": "Your `mean` divides the sum by one less than the number of "
                            "values (as the sample variance does); the mean divides by n.",
}


@dataclass
class Report:
    """The file checked on its own: its data, its status and what is wrong with it."""

    data: dict | None
    status: str  # "ok", "invalid" or "missing"
    problems: list[Message] = field(default_factory=list)


@dataclass
class Reproduced:
    """Whether the student's own ``mean`` computes the file's number."""

    same: bool
    problems: list[Message] = field(default_factory=list)


class AveragesEvidence:
    """The averages notebook's evidence file: checked, traced to ``mean``, scored."""

    file_name = "averages_evidence.json"
    limitation_placeholder = PLACEHOLDER
    max_bytes = 100_000

    def read(self, path: Path) -> dict | None:
        try:
            if path.is_symlink() or path.stat().st_size > self.max_bytes:
                return None
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def verify(self, path: Path | bytes, *, student_id: str | None,
               cohort: str | None) -> Report:
        data = _loads(path) if isinstance(path, bytes) else self.read(path)
        if data is None:
            return Report(None, "missing", [Message(f"no readable {self.file_name}",
                                                    code="missing_file")])
        example = data.get(SECTION)
        values = example.get("values") if isinstance(example, dict) else None
        recorded = example.get("mean") if isinstance(example, dict) else None
        if not (isinstance(values, list) and values and isinstance(recorded, int | float)
                and all(isinstance(value, int | float) for value in values)):
            return Report(data, "invalid", [Message(
                "needs a list of numbers `values` and their `mean`", code="bad_section",
                pointer=f"/{SECTION}")])
        if not math.isclose(recorded, sum(values) / len(values), abs_tol=1e-9):
            return Report(data, "invalid", [Message(
                "this is not the mean of `values`", code="wrong_mean",
                pointer=f"/{SECTION}/mean")])
        return Report(data, "ok")

    def provenance(self, report: Report, student: Student, *, student_id: str | None,
                   cohort: str | None, failed_functions: Collection[str],
                   charged_functions: Collection[str]) -> Reproduced:
        if report.status != "ok" or report.data is None:
            return Reproduced(False)
        example = report.data[SECTION]
        try:
            got = student.call("mean", example["values"])
        except StudentError as error:
            got = error.describe()
        if isinstance(got, int | float) and math.isclose(got, example["mean"], abs_tol=1e-9):
            return Reproduced(True)
        return Reproduced(False, [Message("your `mean` does not compute this number",
                                          code="not_reproduced", pointer=f"/{SECTION}/mean")])

    def without_code(self, report: Report) -> Reproduced:
        return Reproduced(False)

    def part_scores(self, report: Report, provenance: Reproduced) -> dict[str, PartScore]:
        evidence, limitation = SPEC.evidence_part, SPEC.limitation_part
        assert evidence is not None and limitation is not None
        earned = evidence.sections[SECTION] if provenance.same else 0
        scores = {evidence.name: PartScore(evidence.name, earned, evidence.points,
                                           messages=(*report.problems, *provenance.problems))}
        text = (report.data or {}).get(limitation.name)
        if isinstance(text, str) and text.strip() and text.strip() != PLACEHOLDER:
            scores[limitation.name] = PartScore(limitation.name, limitation.review_points,
                                                limitation.points, needs_review=True)
        else:
            scores[limitation.name] = PartScore(limitation.name, 0, limitation.points, messages=(
                Message("no limitation in your own words in the evidence file",
                        code="no_limitation"),))
        return scores

    def ta_notes(self, report: Report) -> list[str]:
        return []

    def warm_up(self) -> None:
        pass

    def describe(self, report: Report) -> str:
        return "\n".join([f"{self.file_name}: {report.status}",
                          *(f"  - {problem.flat()}" for problem in report.problems)])

    def plain(self, report: Report) -> dict:
        return {"status": report.status, "problems": [p.flat() for p in report.problems]}

    def exit_code(self, report: Report) -> int:
        return {"ok": 0, "invalid": 1, "missing": 2}[report.status]


def _loads(data: bytes) -> dict | None:
    try:
        loaded = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


evidence = AveragesEvidence()
