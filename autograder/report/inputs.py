"""What a report is computed from, as one digest: ``publish`` rebuilds a report only when
its inputs changed.

Every command that changes a grade republishes the outputs that exist, the report among
them; building it (plots, and comparing every pair of notebooks) is most of what such a
command costs once the grading is done, and it usually comes out the same. The digest covers
everything ``build_report`` reads: the saved results (their content), grades.csv's rows, the
students without a result, the cohort, and, for the files it opens (each graded notebook and
evidence file, the release notebook whose starter code it subtracts, the assignment's
bundle, and the grader's own code and templates), their size and time of last change: a
rewritten file counts as changed, as it does for ``make``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.report.loading import GradedCourse

INPUTS_FILE = ".inputs"
"""Beside report.html: the digest of the inputs it was built from."""
ENGINE = Path(__file__).resolve().parents[1]
"""The grader's own code and templates (the report's, and the wording it shows)."""


def _files(top: Path) -> Iterable[Path]:
    """Every file under ``top`` (or ``top`` itself), in a fixed order; caches left out."""
    if top.is_file():
        yield top
        return
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            yield Path(folder) / name


def _stamp(path: Path) -> list:
    try:
        status = path.stat()
    except OSError:
        return [str(path), None]
    return [str(path), status.st_size, status.st_mtime_ns]


def digest(graded: GradedCourse, assignment: Assignment, cohort: str | None,
           read: Iterable[Path]) -> str:
    """The digest of a report's inputs; ``read`` is every file or folder it reads besides the
    results (the graded folders, the release notebook)."""
    hashed = hashlib.sha256()

    def add(value: object) -> None:
        hashed.update(json.dumps(value, sort_keys=True, default=str).encode() + b"\n")

    add([assignment.name, cohort, graded.without_results, graded.grades_rows])
    for result in graded.results:
        add(result.to_gradescope())
    for top in (*read, assignment.root, ENGINE):
        for path in _files(top):
            add(_stamp(path))
    return hashed.hexdigest()


def unchanged(folder: Path, inputs: str) -> bool:
    """Whether the report in ``folder`` was built from ``inputs``."""
    try:
        return (folder / INPUTS_FILE).read_text(encoding="utf-8") == inputs
    except OSError:
        return False
