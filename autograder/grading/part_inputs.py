"""What each part of a submission was graded on, as a digest (``PartResult.inputs_hash``).

A TA's decision about a part holds while what the part judged holds
(``autograder.results.decisions.basis``): a resubmission that changes something else (a
markdown cell added) keeps it, one that changes the part's own inputs voids it. A part's
inputs: for the limitation (judged by a person), the text to judge as the evidence file
holds it; for a function part, the notebook's code cells (any of them may define what its
checks call); for the evidence part, those cells and the evidence file (its numbers must
come from that code).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grading.submission import MAX_NOTEBOOK_BYTES, Submission

if TYPE_CHECKING:
    from autograder.assignments import Assignment


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _file_digest(path: Path | None) -> str:
    """The file's bytes (as far as grading reads them), "" when there is none."""
    if path is None or not path.is_file() or path.is_symlink():
        return ""
    try:
        with path.open("rb") as handle:
            return hashlib.sha256(handle.read(MAX_NOTEBOOK_BYTES)).hexdigest()
    except OSError:
        return ""


def part_inputs(submission: Submission, assignment: Assignment) -> dict[str, str]:
    """Part name -> the digest of what it was graded on (see the module)."""
    code = [[cell.grade_id, cell.source] for cell in submission.cells]
    plugin = assignment.evidence
    evidence = None
    if plugin is not None:
        evidence = submission.evidence or submission.folder / assignment.evidence_file
    digests = {}
    for part in assignment.parts:
        if part.kind == "limitation":
            data = plugin.read(evidence) if plugin is not None and evidence is not None else None
            text = data.get(part.name) if isinstance(data, dict) else None
            digests[part.name] = _digest(["limitation", text])
        elif part.kind == "function":
            digests[part.name] = _digest(["code", code])
        else:
            digests[part.name] = _digest([part.kind, code, _file_digest(evidence)])
    return digests
