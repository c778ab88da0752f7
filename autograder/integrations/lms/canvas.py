"""Canvas's gradebook CSV, as "Gradebook > Import" takes it.

The columns are Canvas's own export's: ``Student``, ``ID``, ``SIS User ID``, ``SIS Login
ID``, ``Section``, then the assignment as ``<name> (<Canvas assignment id>)``. Canvas's
importer requires the header to start with ``Student`` and ``ID``, to end the student
columns with ``Section``, and a ``SIS User ID`` to be followed by ``SIS Login ID``; it
finds each student by ``ID`` (Canvas's own user id), else ``SIS User ID``, else ``SIS
Login ID``, else by name. Our student id goes into the column ``canvas_student_id`` names
(``SIS Login ID`` by default); ``Student`` repeats it (we know no names). With an
assignment id Canvas updates that assignment whatever its title; without one it matches
the title, or creates a new assignment.

The second row, ``Points Possible``, is what Canvas's export has there and its import reads
it when present: it gives the maximum (the assignment's total), which a new assignment takes.
Keep the Canvas assignment worth the same points, since the numbers are points of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.integrations.lms.grades import LmsGrade, write_csv

STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
ID_COLUMNS = ("SIS Login ID", "SIS User ID", "ID")  # where our student id may go
POINTS_POSSIBLE = "Points Possible"
FILE_NAME = "canvas-grades.csv"


@dataclass(frozen=True)
class CanvasSettings:
    """The assignment's column and where the student id goes (from cohorts.toml)."""

    assignment_name: str
    assignment_id: str = ""  # Canvas's number for the assignment ("" = match by name)
    student_column: str = "SIS Login ID"

    def __post_init__(self) -> None:
        if self.student_column not in ID_COLUMNS:
            raise ValueError(f"canvas_student_id {self.student_column!r} is not one of "
                             f"{', '.join(ID_COLUMNS)}")
        if self.assignment_id and not self.assignment_id.isdigit():
            raise ValueError(f"canvas_assignment_id {self.assignment_id!r} is not a number: "
                             "copy it from the assignment's address in Canvas "
                             "(.../assignments/<id>)")
        if not self.assignment_name.strip():
            raise ValueError("canvas_assignment_name is empty")

    @property
    def column(self) -> str:
        """The assignment's header: ``<name> (123456)``, as Canvas exports it."""
        name = self.assignment_name.strip()
        return f"{name} ({self.assignment_id})" if self.assignment_id else name


def rows(grades: Sequence[LmsGrade], settings: CanvasSettings,
         points_possible: float) -> list[list[str]]:
    """The header, the Points Possible row and one row per graded student."""
    table = [[*STUDENT_COLUMNS, settings.column],
             [POINTS_POSSIBLE, "", "", "", "", f"{points_possible:g}"]]
    where = STUDENT_COLUMNS.index(settings.student_column)
    for grade in grades:
        row = [grade.student, "", "", "", "", grade.points]
        row[where] = grade.student
        table.append(row)
    return table


def write(path: Path, grades: Sequence[LmsGrade], settings: CanvasSettings,
          points_possible: float) -> Path:
    """Write the file and return its path."""
    write_csv(path, rows(grades, settings, points_possible))
    return path
