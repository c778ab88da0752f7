"""Where things are in an nbgrader course root: the one place its layout is written down.

``submitted/<student>/<assignment>/`` in, ``autograded/<student>/<assignment>/``
and ``feedback/<student>/<assignment>/`` out, ``source/<assignment>/`` for what the
instructor authors and ``release/<assignment>/`` for what the students were given,
``gradebook.db`` and ``grades.csv`` at the root. The root defaults to the current
directory, as with ``nbgrader``. Everything else that needs the layout (the grader's
path redaction, a Dask worker's copy of a submission, the feedback page) asks this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SUBMITTED = "submitted"
AUTOGRADED = "autograded"
FEEDBACK = "feedback"
RELEASE = "release"
SOURCE = "source"
STUDENT_FOLDERS = (SUBMITTED, AUTOGRADED, FEEDBACK)
"""The folders that hold ``<student>/<assignment>/`` (nbgrader's ``{nbgrader_step}``)."""
GRADEBOOK_DB = "gradebook.db"
GRADES_CSV = "grades.csv"
TIMESTAMP_TXT = "timestamp.txt"  # written by nbgrader submit/collect/zip_collect
MAX_TIMESTAMP_BYTES = 200  # nbgrader writes one line; anything longer is not its timestamp
RESULTS_JSON = "results.json"
FEEDBACK_HTML = "feedback.html"


@dataclass(frozen=True)
class Course:
    """A course root and the name of the assignment being graded in it."""

    root: Path
    assignment: str

    @property
    def db_url(self) -> str:
        """nbgrader's default gradebook location."""
        return f"sqlite:///{self.gradebook_db().resolve()}"

    def gradebook_db(self) -> Path:
        """nbgrader's SQLite gradebook (which may not exist yet)."""
        return self.root / GRADEBOOK_DB

    def submitted(self, student: str) -> Path:
        return self.root / SUBMITTED / student / self.assignment

    def autograded(self, student: str) -> Path:
        return self.root / AUTOGRADED / student / self.assignment

    def feedback(self, student: str) -> Path:
        return self.root / FEEDBACK / student / self.assignment

    @property
    def source_dir(self) -> Path:
        """What the instructor authors (``nbgrader generate_assignment``'s input)."""
        return self.root / SOURCE / self.assignment

    @property
    def release_dir(self) -> Path:
        """What the students were given (``nbgrader generate_assignment``'s output)."""
        return self.root / RELEASE / self.assignment

    def grades_csv(self) -> Path:
        return self.root / GRADES_CSV

    def students(self) -> list[str]:
        """Every student with a submission folder for this assignment, sorted."""
        return sorted(student for student in _subfolders(self.root / SUBMITTED)
                      if (self.root / SUBMITTED / student / self.assignment).is_dir())


def course_root_of(folder: Path, kinds: tuple[str, ...] = STUDENT_FOLDERS) -> Path | None:
    """The course root of ``folder`` when it is laid out as ``<root>/<kind>/<student>/
    <assignment>`` with ``kind`` one of ``kinds`` (``submitted``, ``autograded``,
    ``feedback`` by default), else None: a folder graded outside a course root (Gradescope's
    ``/autograder/submission``, a folder given by hand) has none. The path is read as
    given: resolve it first to see through links."""
    parents = Path(folder).parents
    if len(parents) < 3 or parents[1].name not in kinds:
        return None
    return parents[2]


def assignments_in(root: Path) -> list[str]:
    """The assignment names a course root holds: those under ``submitted/<student>/``, or,
    before anything is collected, those under ``release/``; sorted."""
    submitted = root / SUBMITTED
    found = {name for student in _subfolders(submitted)
             for name in _subfolders(submitted / student)}
    return sorted(found) if found else _subfolders(root / RELEASE)


def _subfolders(folder: Path) -> list[str]:
    """The visible subfolders' names of ``folder`` ([] when it is not a readable folder)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return sorted(entry.name for entry in entries
                  if not entry.name.startswith(".") and entry.is_dir())


def parse_time(text: str) -> datetime:
    """nbgrader's '2026-12-14 23:59:00.123 UTC' or ISO 8601, as an aware UTC time."""
    cleaned = text.strip().removesuffix("UTC").strip()
    moment = datetime.fromisoformat(cleaned)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def submission_time(folder: Path) -> tuple[datetime | None, str]:
    """When nbgrader recorded the submission (its timestamp.txt), or None and why not, in
    words for a TA: ``timestamp.txt missing`` (``nbgrader zip_collect`` matching files by
    name writes none), ``timestamp.txt unreadable`` or ``timestamp.txt is not a time``."""
    path = folder / TIMESTAMP_TXT
    if not path.is_file():
        return None, f"{TIMESTAMP_TXT} missing"
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_TIMESTAMP_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, f"{TIMESTAMP_TXT} unreadable"
    if len(text) > MAX_TIMESTAMP_BYTES:
        return None, f"{TIMESTAMP_TXT} is not a time"
    try:
        return parse_time(text), ""
    except (ValueError, OverflowError):
        return None, f"{TIMESTAMP_TXT} is not a time"


def submitted_at(folder: Path) -> datetime | None:
    """When nbgrader recorded the submission (its timestamp.txt), if it did."""
    return submission_time(folder)[0]
