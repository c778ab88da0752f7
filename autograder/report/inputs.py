"""What a report is computed from, as one digest: ``publish`` rebuilds a report only when
its inputs changed.

Every command that changes a grade republishes the outputs that exist, the report among
them; building it (plots, and comparing every pair of notebooks) is most of what such a
command costs once the grading is done, and it usually comes out the same. The digest covers
everything ``build_report`` reads, by each file's size and time of last change (a rewritten
file counts as changed, as for ``make``): every results.json of the assignment, grades.csv,
the submitted and kept folders (the graded notebooks and evidence files), the release
notebook whose starter code it subtracts, the assignment's bundle, and the grader's own code
and templates; and the cohort. Nothing is parsed to compute it, so a kept report costs a walk
of the root (publishing a graded 1,000-student root read every results.json for it before).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import AUTOGRADED, RESULTS_JSON, SUBMITTED, Course

if TYPE_CHECKING:
    from autograder.assignments import Assignment

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


def digest(course: Course, assignment: Assignment, cohort: str | None,
           release: Path | None) -> str:
    """The digest of a report's inputs, from file stamps alone (nothing is parsed: a kept
    report costs a walk of the root, not reading a thousand results): every results.json of
    the assignment, grades.csv, the submitted and kept folders the report reads notebooks and
    evidence files from, the release notebook, the bundle and the grader's code."""
    # batch.versions (jsonschema, 60 ms): only when a report's inputs are read
    from autograder.batch.versions import VERSIONS

    hashed = hashlib.sha256()

    def add(value: object) -> None:
        hashed.update(json.dumps(value, sort_keys=True, default=str).encode() + b"\n")

    add([assignment.name, cohort])
    for student in sorted(_names(course.root / AUTOGRADED)):
        add(_stamp(course.autograded(student) / RESULTS_JSON))
    add(_stamp(course.grades_csv()))
    for top in (course.root / SUBMITTED, course.root / VERSIONS, *([release] if release else []),
                assignment.root, ENGINE):
        for path in _files(top):
            add(_stamp(path))
    return hashed.hexdigest()


def _names(folder: Path) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(folder) if entry.is_dir()]
    except OSError:
        return []


def unchanged(folder: Path, inputs: str) -> bool:
    """Whether the report in ``folder`` was built from ``inputs``."""
    try:
        return (folder / INPUTS_FILE).read_text(encoding="utf-8") == inputs
    except OSError:
        return False
