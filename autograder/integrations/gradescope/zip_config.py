"""The zip's ``gradescope_assignment.json``: what `gradescope build` decided, as plain data.

Written at build time, read by ``run-autograder --config`` for every submission:

* ``assignment`` and ``assignments``: which assignment the zip grades, and the folders of
  bundles (relative to the file) besides the package's;
* ``student_id``: where a student's id comes from when Gradescope's metadata has no
  ``sid`` (a course without student ids): ``"sid"`` (nowhere: such a submission is flagged
  for a person), ``"email"`` (the whole address), ``"email-local"`` (the part before the
  ``@``) or ``"roster"`` (looked up in ``roster``, email -> id, read from a CSV at build
  time);
* ``late_policy``: the course's late policy (``autograder.results.late_policy``) as its
  table, or null for none;
* ``hidden_visibility``: when students see what the hidden checks reveal (each check's
  name, points and diagnosis, and the total made of them), in Gradescope's words
  (``VISIBILITIES``; absent: ``after_due_date``). A student resubmits as often as they
  like, so feedback shown at once is an oracle to resubmit against until every hidden
  check passes.

Everything is data: nothing in the file is run.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.results.late_policy import LatePolicy, LatePolicyError, from_table
from autograder.spec import SpecError

SID_ONLY = "sid"
FROM_EMAIL = "email"
FROM_EMAIL_LOCAL = "email-local"
FROM_ROSTER = "roster"
FALLBACKS = (FROM_EMAIL, FROM_EMAIL_LOCAL)
"""What `gradescope build --student-id` accepts (a roster is `--roster FILE`)."""
SOURCES = (SID_ONLY, *FALLBACKS, FROM_ROSTER)
EMAIL_HEADERS = ("email", "e-mail", "email address")
ID_HEADERS = ("sid", "student id", "student_id", "student number")
ROLE_HEADER = "role"
# Gradescope's results.json ``visibility`` words (per test and top level).
AFTER_DUE_DATE = "after_due_date"  # shown once the (late) due date has passed
AFTER_PUBLISHED = "after_published"  # shown once staff publish the grades
HIDDEN = "hidden"  # staff only
VISIBLE = "visible"  # at once
VISIBILITIES = (AFTER_DUE_DATE, AFTER_PUBLISHED, HIDDEN, VISIBLE)
"""What `gradescope build --hidden-visibility` accepts."""
DEFAULT_VISIBILITY = AFTER_DUE_DATE
REBUILD = "rebuild the zip with `python -m autograder gradescope build ASSIGNMENT`"


class RosterError(ValueError):
    """A roster CSV that cannot be used: one line saying what and how to fix it."""


@dataclass(frozen=True)
class ZipConfig:
    """What a zip grades and how it names and times a submission (see the module docstring)."""

    assignment: str
    assignments: tuple[str, ...] = ()
    student_id: str = SID_ONLY
    roster: dict[str, str] = field(default_factory=dict)  # lower-case email -> student id
    late_policy: LatePolicy | None = None
    hidden_visibility: str = DEFAULT_VISIBILITY

    def to_json(self) -> str:
        data: dict[str, object] = {"assignment": self.assignment,
                                   "assignments": list(self.assignments),
                                   "student_id": self.student_id}
        if self.student_id == FROM_ROSTER:
            data["roster"] = dict(sorted(self.roster.items()))
        data["late_policy"] = asdict(self.late_policy) if self.late_policy else None
        data["hidden_visibility"] = self.hidden_visibility
        return json.dumps(data, indent=2) + "\n"


def read(path: Path) -> ZipConfig:
    """The configuration in ``path``; a ``SpecError`` (one line) when it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        name = data["assignment"]
        folders = data.get("assignments", [])
        source = data.get("student_id", SID_ONLY)
        roster = data.get("roster", {})
        if (not isinstance(name, str) or not isinstance(folders, list)
                or not all(isinstance(folder, str) for folder in folders)
                or source not in SOURCES or not isinstance(roster, dict)
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in roster.items())
                or (source == FROM_ROSTER and not roster)):
            raise TypeError
        table = data.get("late_policy")
        if table is not None and not isinstance(table, dict):
            raise TypeError
        policy = from_table(table) if table is not None else None
        visibility = data.get("hidden_visibility", DEFAULT_VISIBILITY)
    except LatePolicyError as error:
        raise SpecError(f"--config {path}: {error}; {REBUILD}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not the file `gradescope build` writes"
        raise SpecError(f"--config {path}: {why}; {REBUILD}") from None
    if visibility not in VISIBILITIES:
        raise SpecError(f"--config {path}: hidden_visibility {visibility!r} is not one of "
                        f"{', '.join(VISIBILITIES)}; {REBUILD}")
    return ZipConfig(name, tuple(folders), source,
                     {email.lower(): sid for email, sid in roster.items()}, policy, visibility)


def _cell(row: list[str], at: int | None) -> str:
    return row[at].strip() if at is not None and at < len(row) else ""


def _column(headers: list[str], wanted: tuple[str, ...]) -> int | None:
    names = [header.strip().lower() for header in headers]
    return next((names.index(name) for name in wanted if name in names), None)


def read_roster(path: Path, id_column: str | None = None) -> dict[str, str]:
    """Email (lower case) -> student id from a roster CSV: an ``Email`` column and an id
    column (``id_column``, else ``SID``, ``Student ID`` or ``Student Number``); with a
    ``Role`` column, only its students' rows. ``RosterError`` for anything that would give
    a student the wrong id or none."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise RosterError(f"--roster {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise RosterError(f"--roster {path}: not UTF-8 text; export it as CSV (UTF-8)") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise RosterError(f"--roster {path} is empty")
    headers = rows[0]
    email_at = _column(headers, EMAIL_HEADERS)
    id_at = _column(headers, (id_column.strip().lower(),) if id_column else ID_HEADERS)
    role_at = _column(headers, (ROLE_HEADER,))
    shown = ", ".join(repr(h) for h in headers)
    if email_at is None:
        raise RosterError(f"--roster {path}: no Email column (its columns: {shown})")
    if id_at is None:
        wanted = repr(id_column) if id_column else "SID, Student ID or Student Number"
        raise RosterError(f"--roster {path}: no student id column ({wanted}; its columns: "
                          f"{shown}); name it with --roster-id-column")
    roster: dict[str, str] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if role_at is not None and _cell(row, role_at).lower() not in ("student", ""):
            continue  # staff
        email, sid = _cell(row, email_at).lower(), _cell(row, id_at)
        if not email or not sid:
            missing = "email" if not email else f"student id for {email}"
            raise RosterError(f"--roster {path} line {line}: no {missing}; fill it in or "
                              "delete the row")
        if roster.get(email, sid) != sid:
            raise RosterError(f"--roster {path} line {line}: {email} has two student ids "
                              f"({roster[email]!r} and {sid!r}); keep one")
        roster[email] = sid
    if not roster:
        raise RosterError(f"--roster {path}: no student rows")
    return roster
