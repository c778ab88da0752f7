"""What Gradescope's ``submission_metadata.json`` says about one submission: whose it is,
and when it came.

Gradescope documents ``users: [{email, id, name}]`` (with a ``sid`` when the course has
student ids), ``created_at`` (the submission time: Gradescope's record, which the student
cannot set) and ``assignment.due_date`` / ``assignment.late_due_date``; a user's own
``assignment`` dates (an extension), when the metadata has them, come first.

The student id decides the evidence inputs, so it is never guessed: ``sid``, else what the
zip maps (``zip_config``: the email, its part before the ``@``, or a roster), else none, and
then the submission is graded without an identity check and flagged for a person, with one
line that says why (``Identity.problem``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from autograder.base.course import parse_time
from autograder.batch.lateness import NOT_JUDGED, shown
from autograder.integrations.gradescope.zip_config import (
    FROM_EMAIL,
    FROM_EMAIL_LOCAL,
    FROM_ROSTER,
    ZipConfig,
)
from autograder.results import late_policy, note_codes
from autograder.results.late_policy import LatePolicy
from autograder.results.result import SubmissionResult
from autograder.results.root_settings import due_text

MAX_METADATA_BYTES = 20 * 2**20  # previous_submissions carries old results: allow some
TIME_SOURCE = "gradescope"  # submitted_at is Gradescope's created_at
EXPLICIT = "--student-id"
FIX_IDS = ("give the course student ids on Gradescope (Roster), or rebuild the zip with "
           "--student-id email, --student-id email-local or --roster FILE")
NO_ID_NOTE = ("the grader has no student id for your Gradescope account, so it could not "
              "check that the evidence file is yours: a person will check this submission "
              "before its grade is final")


@dataclass(frozen=True)
class Identity:
    """Who submitted: ``student_id`` decides the evidence inputs (None: not known);
    ``label`` names the result; ``problem`` (one line, for the instructor) says why there is
    no id; ``source`` says where the id came from."""

    student_id: str | None
    label: str
    source: str
    problem: str = ""
    group: int = 1  # how many users the submission lists


@dataclass(frozen=True)
class Timing:
    """When the submission came and when it was due (None: not given or not readable);
    ``problems``: what could not be read, for the instructor."""

    submitted: datetime | None
    due: datetime | None
    late_due: datetime | None
    problems: tuple[str, ...] = ()


def load(path: Path) -> tuple[dict[str, Any], str]:
    """The metadata, and "" or why it cannot be read (no file: ``{}``, "")."""
    if not path.is_file():
        return {}, ""
    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            return {}, f"{path} is larger than {MAX_METADATA_BYTES // 2**20} MiB: not read"
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        return {}, f"{path} cannot be read ({type(error).__name__}): its users and dates are unknown"
    if not isinstance(data, dict):
        return {}, f"{path} is not a JSON object: its users and dates are unknown"
    return data, ""


def _users(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    users = metadata.get("users")
    return [user for user in users if isinstance(user, dict)] if isinstance(users, list) else []


def _text(value: object) -> str:
    return str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""


def identify(metadata: dict[str, Any], config: ZipConfig, explicit: str | None = None) -> Identity:
    """The student id of the first user (``explicit`` wins: ``run-autograder --student-id``),
    from ``sid``, else from the mapping ``config`` carries (see the module docstring)."""
    users = _users(metadata)
    if explicit:
        return Identity(explicit, explicit, EXPLICIT, group=max(1, len(users)))
    if not users:
        return Identity(None, "student", "", "no student id: Gradescope's metadata lists no "
                        "user for this submission; a person must check whose it is")
    user = users[0]
    sid, email, number = _text(user.get("sid")), _text(user.get("email")), _text(user.get("id"))
    label = email or (f"gradescope user {number}" if number else "student")
    group = len(users)
    if sid:
        return Identity(sid, sid, "sid", group=group)
    rule = config.student_id
    found = ""
    if rule == FROM_EMAIL:
        found = email
    elif rule == FROM_EMAIL_LOCAL:
        found = email.partition("@")[0].strip()
    elif rule == FROM_ROSTER:
        found = config.roster.get(email.lower(), "")
    if found:
        return Identity(found, found, rule, group=group)
    if rule == FROM_ROSTER and email:
        how = f"{email} is not in the zip's roster"
    elif rule in (FROM_EMAIL, FROM_EMAIL_LOCAL, FROM_ROSTER):
        how = f"the metadata has no email to take it from ({rule})"
    else:
        how = "the zip maps none"
    return Identity(None, label, "", f"no student id for {label}: Gradescope gave no sid and "
                    f"{how}; the evidence file's owner was not checked and a person must "
                    f"look ({FIX_IDS})", group=group)


def _moment(holder: object, key: str, problems: list[str], where: str) -> datetime | None:
    value = holder.get(key) if isinstance(holder, dict) else None
    if value in (None, ""):
        return None
    try:
        return parse_time(str(value))
    except (ValueError, OverflowError):
        problems.append(f"{where}{key} {str(value)[:60]!r} is not a time")
        return None


def timing(metadata: dict[str, Any]) -> Timing:
    """``created_at`` against the due dates: the first user's own (an extension), else the
    assignment's."""
    problems: list[str] = []
    submitted = _moment(metadata, "created_at", problems, "")
    users = _users(metadata)
    own = users[0].get("assignment") if users else None
    assignment = metadata.get("assignment")
    dates = {}
    for key in ("due_date", "late_due_date"):
        mine = _moment(own, key, problems, "users[0].assignment.")
        dates[key] = mine or _moment(assignment, key, problems, "assignment.")
    return Timing(submitted, dates["due_date"], dates["late_due_date"], tuple(problems))


def mark(result: SubmissionResult, when: Timing, policy: LatePolicy | None) -> None:
    """Set ``result``'s time, due date and ``late`` from Gradescope's dates (in place), then
    the course's late policy, if the zip carries one (``late_policy.apply``). As for a batch
    (``autograder.batch.outcome``): no due date is ``late: unknown`` and not judged; a due
    date but no submission time is ``unknown`` and goes to a person."""
    result.time_source = TIME_SOURCE if when.submitted else ""
    result.submitted_at = shown(when.submitted) if when.submitted else ""
    result.due = due_text(when.due)
    result.late = bool(when.due and when.submitted and when.submitted > when.due)
    result.late_unknown = when.due is None or when.submitted is None
    for problem in when.problems:
        result.ta_note(f"Gradescope's metadata: {problem}", note_codes.GRADESCOPE_METADATA)
    if when.due is None:
        result.ta_note(NOT_JUDGED, note_codes.LATE_NOT_JUDGED)
    elif when.submitted is None:
        result.note("Gradescope's metadata has no readable submission time (created_at): "
                    "check when it was submitted", note_codes.TIME_UNCONFIRMED, review=True)
    if when.late_due and when.submitted and when.submitted > when.late_due:
        result.ta_note(f"submitted at {shown(when.submitted)}, after the late due date "
                       f"{due_text(when.late_due)}", note_codes.GRADESCOPE_METADATA)
    late_policy.apply(result, policy or LatePolicy(), when.due, when.submitted)
