"""Where things are in an nbgrader course root (nbgrader's own layout and defaults).

``submitted/<student>/<assignment>/`` in, ``autograded/<student>/<assignment>/``
and ``feedback/<student>/<assignment>/`` out, ``gradebook.db`` at the root. The
root defaults to the current directory, as with ``nbgrader``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

GRADES_CSV = "grades.csv"
TIMESTAMP_TXT = "timestamp.txt"  # written by nbgrader submit/collect/zip_collect
MAX_TIMESTAMP_BYTES = 200  # nbgrader writes one line; anything longer is not its timestamp
RESULTS_JSON = "results.json"
FEEDBACK_HTML = "feedback.html"


@dataclass(frozen=True)
class Course:
    """A course root and the assignment being graded in it."""

    root: Path
    assignment: str

    @property
    def db_url(self) -> str:
        """nbgrader's default gradebook location."""
        return f"sqlite:///{(self.root / 'gradebook.db').resolve()}"

    def submitted(self, student: str) -> Path:
        return self.root / "submitted" / student / self.assignment

    def autograded(self, student: str) -> Path:
        return self.root / "autograded" / student / self.assignment

    def feedback(self, student: str) -> Path:
        return self.root / "feedback" / student / self.assignment

    def grades_csv(self) -> Path:
        return self.root / GRADES_CSV

    def students(self) -> list[str]:
        """Every student with a submission folder for this assignment, sorted."""
        base = self.root / "submitted"
        if not base.is_dir():
            return []
        return sorted(
            entry.name
            for entry in base.iterdir()
            if entry.is_dir()
            and not entry.name.startswith(".")
            and (entry / self.assignment).is_dir()
        )


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
