"""Which students an LMS file carries, with which number, and how the files are written.

A student whose submission was graded gets the ``total`` of ``grades.csv``, the same
string. A student with no grade to import (``ungradable``: no readable notebook;
``grader_error``: our fault, retried next run) is left out of the file, never given a 0
or a blank: both importers treat a blank cell as "no grade" (Moodle clears the grade,
Canvas shows a change to the existing one), so leaving the row out is the only way to
import nothing for them. ``cohort export`` lists them, with why, for a TA to grade by hand.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.results.result import STATUS_GRADED, SubmissionResult, write_atomically
from autograder.views import grades_csv


@dataclass(frozen=True)
class LmsGrade:
    """One student's row: their id as the LMS knows it and the points, as text."""

    student: str
    points: str  # grades.csv's ``total``: "87.5", "100" (a "." decimal, never a comma)


@dataclass(frozen=True)
class LeftOut:
    """A student with no grade to import, and why (for the TA)."""

    student: str
    status: str
    reason: str


NOT_GRADED = "not graded"
UNREADABLE = "unreadable"


def split(results: Iterable[SubmissionResult], students: Iterable[str] = (),
          unreadable: dict[str, str] | None = None) -> tuple[list[LmsGrade], list[LeftOut]]:
    """The graded students' grades and the others (``students`` with no result at all
    among them; ``unreadable``: those whose results.json is there but unreadable, and which
    file and why, in words),
    each sorted by student id."""
    unreadable = unreadable or {}
    grades, left_out = [], []
    results = list(results)
    for result in sorted(results, key=lambda r: r.student):
        if result.status == STATUS_GRADED:
            grades.append(LmsGrade(result.student, str(grades_csv.row(result)["total"])))
        else:
            left_out.append(LeftOut(result.student, result.status, result.reason))
    seen = {result.student for result in results}
    left_out += [LeftOut(student, UNREADABLE, f"{unreadable[student]}: autograde regrades it")
                 if student in unreadable else
                 LeftOut(student, NOT_GRADED, "no results.json yet: grade the cohort first")
                 for student in sorted(set(students) - seen)]
    return grades, sorted(left_out, key=lambda s: s.student)


def write_csv(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """A CSV both importers read: UTF-8 without a byte-order mark (it would become part of
    the first header), comma separated, quoted where needed, CRLF line ends (RFC 4180)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    write_atomically(path, buffer.getvalue())
