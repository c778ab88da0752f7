"""What a course root remembers between runs: its cohort and due date, in ``course.json``.

A due date given on one command line only would be lost at the next run in the same root
(``autograde`` with no ``--due``, or ``--student``): the late student would silently become
"on time". So the first run given them (``cohort release``, ``cohort grade``, ``autograde
--due/--cohort``) writes them here, per assignment, and every later run in the root uses them
when not given. ``--due`` given explicitly replaces the stored date and says so;
``--no-due`` clears it. The file is small JSON a TA may read or edit::

    {"h2_attention": {"cohort": "demo-2026", "due": "2026-12-14 23:59:00 UTC"}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from autograder.batch.course import parse_time

COURSE_JSON = "course.json"


class RootSettingsError(ValueError):
    """``course.json`` exists but cannot be read: one line saying which file and what to do."""


@dataclass(frozen=True)
class RootSettings:
    """The cohort and due date a course root remembers for one assignment (None: none)."""

    cohort: str | None = None
    due: datetime | None = None  # aware, UTC


def due_text(due: datetime | None) -> str:
    """The due date as results.json and course.json write it (``2026-12-14 23:59:00 UTC``,
    microseconds only when there are some; a time without a zone is UTC), or "" without one."""
    if due is None:
        return ""
    due = (due if due.tzinfo else due.replace(tzinfo=UTC)).astimezone(UTC)
    return f"{due:%Y-%m-%d %H:%M:%S}" + (f".{due:%f}" if due.microsecond else "") + " UTC"


def path(root: Path) -> Path:
    return Path(root) / COURSE_JSON


def _read_all(root: Path) -> dict:
    file = path(root)
    fix = f"fix or delete {file}, then give --due and --cohort again"
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise RootSettingsError(f"cannot read {file} ({error}): {fix}") from None
    if not isinstance(data, dict):
        raise RootSettingsError(f"{file} is not a JSON object: {fix}")
    return data


def load(root: Path, assignment: str) -> RootSettings:
    """What ``root`` remembers for ``assignment`` (nothing when there is no course.json);
    ``RootSettingsError`` for a file that is damaged or holds an unreadable due date."""
    entry = _read_all(root).get(assignment, {})
    fix = f"fix or delete {path(root)}, then give --due and --cohort again"
    if not isinstance(entry, dict):
        raise RootSettingsError(f"{path(root)}: {assignment!r} is not a JSON object: {fix}")
    cohort, due = entry.get("cohort") or None, entry.get("due") or None
    if cohort is not None and not isinstance(cohort, str):
        raise RootSettingsError(f"{path(root)}: cohort {cohort!r} is not a text: {fix}")
    if due is None:
        return RootSettings(cohort, None)
    if not isinstance(due, str) or not due.strip().endswith("UTC"):
        raise RootSettingsError(f"{path(root)}: due {due!r} is not a time in UTC "
                                f"('2026-12-14 23:59:00 UTC'): {fix}")
    try:
        return RootSettings(cohort, parse_time(due))
    except (ValueError, OverflowError):
        raise RootSettingsError(f"{path(root)}: due {due!r} is not a time: {fix}") from None


def save(root: Path, assignment: str, settings: RootSettings) -> None:
    """Write ``settings`` for ``assignment`` into ``root``'s course.json (atomically), keeping
    what the file holds for other assignments."""
    from autograder.results.result import write_atomically  # not before the zygote starts

    data = _read_all(root)
    data[assignment] = {"cohort": settings.cohort or "", "due": due_text(settings.due)}
    write_atomically(path(root), json.dumps(data, indent=2, sort_keys=True) + "\n")


def shown(settings: RootSettings) -> str:
    """``due 2026-12-14 23:59:00 UTC; cohort demo-2026`` (or what is missing), for the
    summary lines every grading command prints."""
    due = f"due {due_text(settings.due)}" if settings.due else "no due date: lateness not judged"
    return f"{due}; " + (f"cohort {settings.cohort}" if settings.cohort else "no cohort")


def remember(root: Path, assignment: str, *, cohort: str | None = None,
             due: datetime | None = None, set_due: bool = False, set_cohort: bool = False,
             ) -> tuple[RootSettings, list[str]]:
    """The settings to grade with, and one line per change written to course.json.

    ``set_due``: ``due`` was given (None: cleared, as ``--no-due``); otherwise the stored
    due date stands. Likewise ``set_cohort`` and ``cohort``."""
    stored = load(root, assignment)
    wanted = RootSettings(cohort if set_cohort else stored.cohort,
                          (due.astimezone(UTC) if due else None) if set_due else stored.due)
    lines = []
    if due_text(wanted.due) != due_text(stored.due):
        was = due_text(stored.due) or "none"
        lines.append(
            f"due date of {assignment} in {root}: {due_text(wanted.due)} (was {was}), "
            f"remembered in {path(root)}" if wanted.due else
            f"due date of {assignment} in {root} cleared (was {was}) in {path(root)}: "
            "lateness not judged until one is given with --due")
    if (wanted.cohort or "") != (stored.cohort or ""):
        lines.append(f"cohort of {assignment} in {root}: {wanted.cohort or 'none'} (was "
                     f"{stored.cohort or 'none'}), remembered in {path(root)}")
    if lines or (set_due or set_cohort) and not path(root).exists():
        save(root, assignment, wanted)
    return wanted, lines
