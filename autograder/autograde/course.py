"""Where things are in an nbgrader course root (nbgrader's own layout and defaults).

``submitted/<student>/<assignment>/`` in, ``autograded/<student>/<assignment>/``
and ``feedback/<student>/<assignment>/`` out, ``gradebook.db`` at the root. The
root defaults to the current directory, as with ``nbgrader``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

GRADES_CSV = "grades.csv"
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
