"""Moodle's CSV grade import ("Grades > Import > CSV file").

Two columns: the student's identifier, headed by the Moodle user field it holds
(``username`` by default; ``idnumber``, ``email`` or ``id`` as ``moodle_identifier``
says), and the grade, headed by ``moodle_grade_item`` (the assignment's name by default).
On Moodle's import page choose "UTF-8" and "comma", map ``Identify user by`` from that
first column to the same user field, and map the grade column to the assignment's grade
item. Moodle aborts the whole import when a row names a user it does not know, and reads a
number with a "." decimal; a blank grade would clear the student's grade, which is why a
student with no grade is left out (``autograder.integrations.lms.grades``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.integrations.lms.grades import LmsGrade, write_csv

# Moodle's user fields a grade import can map from (its "Map to" list), by our name.
IDENTIFIERS = {"username": "username", "idnumber": "useridnumber", "email": "useremail",
               "id": "userid"}
FILE_NAME = "moodle-grades.csv"


@dataclass(frozen=True)
class MoodleSettings:
    """The identifier column's field and the grade column's name (from cohorts.toml)."""

    grade_item: str
    identifier: str = "username"

    def __post_init__(self) -> None:
        if self.identifier not in IDENTIFIERS:
            raise ValueError(f"moodle_identifier {self.identifier!r} is not one of "
                             f"{', '.join(IDENTIFIERS)}")
        if not self.grade_item.strip():
            raise ValueError("moodle_grade_item is empty")


def rows(grades: Sequence[LmsGrade], settings: MoodleSettings) -> list[list[str]]:
    """The header and one row per graded student."""
    return [[settings.identifier, settings.grade_item.strip()],
            *([grade.student, grade.points] for grade in grades)]


def write(path: Path, grades: Sequence[LmsGrade], settings: MoodleSettings) -> Path:
    """Write the file and return its path."""
    write_csv(path, rows(grades, settings))
    return path
