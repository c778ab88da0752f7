"""Whether the feedback ``nbgrader release_feedback`` put in the exchange is the root's
current copy: a decision after the release changes the copy, not the page students fetch.

nbgrader 0.9.6 releases ``feedback/<student>/<assignment>/<notebook>.html`` to
``<Exchange.root>/<course id>/feedback/<md5(secret + notebook)>.html``, the secret being
``submission_secret.txt`` beside the copy, read as it is. The exchange and course id are
the root's ``nbgrader_config.py``'s (read as text, never run; a cohort's root has one): a
root without a course id releases nothing, and nothing is said about it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import Course
from autograder.base.safe_text import shown_id
from autograder.views.feedback_page import course_id
from autograder.views.nbgrader_feedback import SECRET_TXT, feedback_page

if TYPE_CHECKING:
    from autograder.assignments import Assignment

NBGRADER_DEFAULT_EXCHANGE = Path("/srv/nbgrader/exchange")  # nbgrader's Exchange.root default
_EXCHANGE_ROOT = re.compile(
    r"""^\s*c\.Exchange\.root\s*=\s*(?P<q>['"])(?P<root>[^'"\n]+)(?P=q)\s*$""", re.M)


def exchange_feedback(root: Path) -> Path | None:
    """Where ``release_feedback`` run in ``root`` puts its pages; None without a course id."""
    course = course_id(root)
    if not course:
        return None
    try:
        match = _EXCHANGE_ROOT.search((root / "nbgrader_config.py").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        match = None
    exchange = Path(match.group("root")) if match else NBGRADER_DEFAULT_EXCHANGE
    return exchange / course / "feedback"


def released_page(folder: Path, copy: Path) -> Path | None:
    """The page in the exchange's ``folder`` that ``copy`` is released as (None: no secret)."""
    try:
        secret = (copy.parent / SECRET_TXT).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    digest = hashlib.md5((secret + copy.stem).encode("utf-8"), usedforsecurity=False)
    return folder / f"{digest.hexdigest()}.html"


@dataclass
class Released:
    """The root's released feedback: how many pages, and the students whose page in the
    exchange is not their current copy (``older``) or who have none there (``missing``)."""

    pages: list[Path] = field(default_factory=list)
    older: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[str]:
        return sorted(self.older + self.missing)


def released(course: Course, assignment: Assignment) -> Released:
    """The root's copies against the exchange (nothing released for this root: empty)."""
    found = Released()
    folder = exchange_feedback(course.root)
    if folder is None or not folder.is_dir():
        return found
    for student in course.students():
        copy = feedback_page(course, student, assignment)
        page = released_page(folder, copy) if copy.is_file() else None
        if page is None:
            continue
        try:
            same = page.read_bytes() == copy.read_bytes()
        except FileNotFoundError:
            found.missing.append(student)
            continue
        except OSError:
            same = False
        found.pages.append(page)
        if not same:
            found.older.append(student)
    if not found.pages:  # nothing of this root released yet: the TA has not released
        return Released()
    return found


def stale_line(course: Course, assignment: Assignment, stale: Released) -> str:
    """One line naming who needs ``release_feedback`` again ("" for nobody)."""
    if not stale.stale:
        return ""
    said = []
    if stale.older:
        said.append(f"released feedback of {', '.join(map(shown_id, stale.older[:5]))}"
                    f"{', ...' if len(stale.older) > 5 else ''} is older than its grade")
    if stale.missing:
        said.append(f"feedback of {', '.join(map(shown_id, stale.missing[:5]))}"
                    f"{', ...' if len(stale.missing) > 5 else ''} is not released yet")
    return (" and ".join(said) + f": run `nbgrader release_feedback {assignment.name}` in "
            f"{course.root} again")
