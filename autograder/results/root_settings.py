"""What a course root remembers between runs: its cohort and due date, in ``course.json``.

A due date given on one command line only would be lost at the next run in the same root
(``autograde`` with no ``--due``, or ``--student``): the late student would silently become
"on time". So the first run given them (``cohort release``, ``cohort grade``, ``autograde
--due/--cohort``) writes them here, per assignment, and every later run in the root uses them
when not given. ``--due`` given explicitly replaces the stored date and says so;
``--no-due`` clears it. It also keeps where an assignment's bundle lives when it is not
the package's (``bundle``: the folder a command was given with ``--assignments``), so later
commands in the root find it without being told again. A cohort's root is marked with its
cohorts.toml (``settings_of_record``): that file, not course.json, is where its settings are
decided, and course.json keeps a copy (``autograder.integrations.cohorts.record``). The file
is small JSON a TA may read or edit::

    {"hw3": {"cohort": "demo-2026", "due": "2026-12-14 23:59:00 UTC",
             "bundle": "/home/ta/course/bundles/hw3"}}
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.base.course import parse_time
from autograder.results.late_policy import LatePolicy, LatePolicyError, from_table
from autograder.results.version_rules import VersionRuleError, parse

COURSE_JSON = "course.json"
# What other commands keep under an assignment in course.json (``save`` leaves it as it is):
# the LMS files' settings `cohort export` used, so every later command can refresh them.
LMS = "lms"
# Where the assignment's bundle lives (``remember_bundle``), when it is not the package's.
BUNDLE = "bundle"
# A cohort root's settings of record: the cohorts.toml whose cohort it is (``remember_record``,
# by `cohort release` and `cohort grade`). Its due date, late policy, extensions and version
# rule are the root's; course.json keeps a copy, which every command reads.
RECORD = "settings_of_record"
KEPT_BY_OTHERS = (LMS, BUNDLE, RECORD)


class RootSettingsError(ValueError):
    """``course.json`` exists but cannot be read: one line saying which file and what to do."""


@dataclass(frozen=True)
class RootSettings:
    """The cohort and due date a course root remembers for one assignment (None: none), with
    its late policy and the students' extensions (their own due dates)."""

    cohort: str | None = None
    due: datetime | None = None  # aware, UTC
    late_policy: LatePolicy = field(default_factory=LatePolicy)
    extensions: dict[str, datetime] = field(default_factory=dict)
    version_rule: str = "newest"  # which kept version counts (autograder.batch.version_rule)
    course: str | None = None  # the course's name, as its students' pages say it


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
    course = entry.get("course") or None
    if course is not None and course_name_problem(course):
        raise RootSettingsError(f"{path(root)}: course {course!r} {course_name_problem(course)}: "
                                f"{fix}")
    try:
        policy = from_table(entry.get("late_policy") or {})
    except LatePolicyError as error:
        raise RootSettingsError(f"{path(root)}: {error}: {fix}") from None
    extensions = entry.get("extensions") or {}
    if not isinstance(extensions, dict):
        raise RootSettingsError(f"{path(root)}: extensions is not a JSON object: {fix}")
    try:
        rule = parse(entry.get("version_rule") or "newest")
    except VersionRuleError as error:
        raise RootSettingsError(f"{path(root)}: {error}: {fix}") from None
    return RootSettings(cohort, None if due is None else _time(root, "due", due, fix), policy,
                        {student: _time(root, f"the extension of {student}", when, fix)
                         for student, when in extensions.items()}, rule, course)


MAX_COURSE_NAME = 200


def course_name_problem(name: object) -> str:
    """Why ``name`` cannot be a course's name ("" when it can): one line of text."""
    if not isinstance(name, str) or not name.strip():
        return "is not a name"
    if len(name) > MAX_COURSE_NAME or not name.isprintable():
        return f"is not one line of at most {MAX_COURSE_NAME} characters"
    return ""


def _time(root: Path, what: str, text: object, fix: str) -> datetime:
    if not isinstance(text, str) or not text.strip().endswith("UTC"):
        raise RootSettingsError(f"{path(root)}: {what} {text!r} is not a time in UTC "
                                f"('2026-12-14 23:59:00 UTC'): {fix}")
    try:
        return parse_time(text)
    except (ValueError, OverflowError):
        raise RootSettingsError(f"{path(root)}: {what} {text!r} is not a time: {fix}") from None


def save(root: Path, assignment: str, settings: RootSettings) -> None:
    """Write ``settings`` for ``assignment`` into ``root``'s course.json (atomically), keeping
    what the file holds for other assignments."""
    from autograder.results.result import write_atomically  # not before the zygote starts

    data = _read_all(root)
    kept = {key: value for key, value in (data.get(assignment) or {}).items()
            if key in KEPT_BY_OTHERS}
    data[assignment] = {**kept, "cohort": settings.cohort or "", "due": due_text(settings.due)}
    if settings.late_policy.active:
        data[assignment]["late_policy"] = asdict(settings.late_policy)
    if settings.extensions:
        data[assignment]["extensions"] = {student: due_text(when) for student, when
                                          in sorted(settings.extensions.items())}
    if settings.version_rule != "newest":  # the default is not written: older files stay as they were
        data[assignment]["version_rule"] = settings.version_rule
    if settings.course:  # likewise: a root that was never given one has no "course"
        data[assignment]["course"] = settings.course
    write_atomically(path(root), json.dumps(data, indent=2, sort_keys=True) + "\n")


def shown(settings: RootSettings) -> str:
    """``due 2026-12-14 23:59:00 UTC; cohort demo-2026`` (or what is missing), for the
    summary lines every grading command prints."""
    due = f"due {due_text(settings.due)}" if settings.due else "no due date: lateness not judged"
    if settings.due and settings.late_policy.active:
        due += f" ({settings.late_policy.describe()})"
    if settings.extensions:
        due += f", {len(settings.extensions)} extension{'s' if len(settings.extensions) > 1 else ''}"
    counts = "" if settings.version_rule == "newest" else f"; version rule {settings.version_rule}"
    return f"{due}; " + (f"cohort {settings.cohort}" if settings.cohort else "no cohort") + counts


def _check_extensions(settings: RootSettings) -> None:
    """``RootSettingsError`` (one line, with the fix) for an extension that ends on or before
    the due date: given so (a year typed early), or left behind by a due date moved past it,
    it would make its student late sooner, not later."""
    if settings.due is None:
        return
    for student, when in sorted(settings.extensions.items()):
        if when <= settings.due:
            raise RootSettingsError(
                f"the extension of {student} ({due_text(when)}) ends "
                f"{'on' if when == settings.due else 'before'} the due date "
                f"({due_text(settings.due)}), so it would make {student} late sooner, not "
                f"later: give a later one with --extension {student}='TIME', or take it back "
                f"with --extension {student}=none (nothing was changed)")


def remember(root: Path, assignment: str, *, cohort: str | None = None,
             due: datetime | None = None, set_due: bool = False, set_cohort: bool = False,
             late_policy: LatePolicy | None = None,
             extensions: dict[str, datetime | None] | None = None,
             replace_extensions: bool = False, version_rule: str | None = None,
             course: str | None = None,
             ) -> tuple[RootSettings, list[str]]:
    """The settings to grade with, and one line per change written to course.json.

    ``set_due``: ``due`` was given (None: cleared, as ``--no-due``); otherwise the stored
    due date stands. Likewise ``set_cohort`` and ``cohort``; ``late_policy`` when given.
    ``extensions``: student -> due date (None: taken back), added to the stored ones, or
    replacing them all with ``replace_extensions`` (cohorts.toml's list is the whole list).
    ``version_rule``: which kept version counts, when given; ``course``: the course's name,
    when given."""
    stored = load(root, assignment)
    merged = {} if replace_extensions else dict(stored.extensions)
    for student, when in (extensions or {}).items():
        if when is None:
            merged.pop(student, None)
        else:
            merged[student] = when.astimezone(UTC)
    wanted = RootSettings(cohort if set_cohort else stored.cohort,
                          (due.astimezone(UTC) if due else None) if set_due else stored.due,
                          stored.late_policy if late_policy is None else late_policy,
                          merged, stored.version_rule if version_rule is None else version_rule,
                          stored.course if course is None else course)
    _check_extensions(wanted)
    lines = []
    if wanted.course != stored.course:
        lines.append(f"course of {assignment} in {root}: {wanted.course} (was "
                     f"{stored.course or 'none'}), remembered in {path(root)}")
    if wanted.version_rule != stored.version_rule:
        lines.append(f"version rule of {assignment} in {root}: {wanted.version_rule} (was "
                     f"{stored.version_rule}), remembered in {path(root)}")
    if wanted.late_policy != stored.late_policy:
        lines.append(f"late policy of {assignment} in {root}: {wanted.late_policy.describe()} "
                     f"(was {stored.late_policy.describe()}), remembered in {path(root)}")
    for student in sorted(set(wanted.extensions) | set(stored.extensions)):
        now, was = wanted.extensions.get(student), stored.extensions.get(student)
        if due_text(now) != due_text(was):
            lines.append(f"extension for {student}: due {due_text(now)}" if now else
                         f"extension for {student} taken back (was {due_text(was)})")
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


def remembered_lms(root: Path, assignment: str) -> dict | None:
    """The settings of the LMS files `cohort export` last wrote in ``root`` (plain data:
    ``{"canvas": {...}, "moodle": {...}}``), or None."""
    entry = _read_all(root).get(assignment)
    found = entry.get(LMS) if isinstance(entry, dict) else None
    return found if isinstance(found, dict) else None


def remember_lms(root: Path, assignment: str, settings: dict) -> None:
    """Keep ``settings`` (plain data) as the root's LMS file settings for ``assignment``."""
    # results.result (7-15 ms): not before the zygote starts
    from autograder.results.result import write_atomically

    data = _read_all(root)
    entry = data.get(assignment) if isinstance(data.get(assignment), dict) else {}
    if entry.get(LMS) == settings:
        return
    data[assignment] = {**entry, LMS: settings}
    write_atomically(path(root), json.dumps(data, indent=2, sort_keys=True) + "\n")


def settings_of_record(root: Path, assignment: str) -> Path | None:
    """The cohorts.toml whose settings are ``root``'s record for ``assignment`` (a cohort
    root), or None (a plain root: course.json is the record); ``RootSettingsError`` for a
    course.json that cannot be read."""
    return _remembered_path(root, assignment, RECORD, f"{RECORD} {{found!r}} is not a file's "
                            "path: fix or remove it, then run `cohort grade` again")


def remember_record(root: Path, assignment: str, config: Path) -> bool:
    """Keep ``config`` (absolute) as the cohorts.toml of record for ``assignment`` in
    ``root``; returns whether course.json changed."""
    return _remember_path(root, assignment, RECORD, config)


def remembered_bundle(root: Path, assignment: str) -> Path | None:
    """The folder of ``assignment``'s bundle that ``root`` remembers (``remember_bundle``),
    or None; ``RootSettingsError`` for a course.json that cannot be read."""
    return _remembered_path(root, assignment, BUNDLE, "bundle {found!r} is not a folder's "
                            "path: fix or remove it, then give --assignments DIR")


def remember_bundle(root: Path, assignment: str, folder: Path) -> bool:
    """Keep ``folder`` (absolute) as where ``assignment``'s bundle lives; returns whether
    course.json changed."""
    return _remember_path(root, assignment, BUNDLE, folder)


def _remembered_path(root: Path, assignment: str, key: str, wrong: str) -> Path | None:
    """The path course.json keeps under ``key`` for ``assignment``, or None;
    ``RootSettingsError`` (``wrong``, with ``{found!r}``) for one that is not a path."""
    entry = _read_all(root).get(assignment)
    found = entry.get(key) if isinstance(entry, dict) else None
    if found is not None and (not isinstance(found, str) or not found.strip()):
        raise RootSettingsError(f"{path(root)}: {assignment!r}'s " + wrong.format(found=found))
    return Path(found) if found else None


def _remember_path(root: Path, assignment: str, key: str, value: Path) -> bool:
    """Keep ``value`` under ``key`` for ``assignment`` in course.json; whether it changed."""
    # results.result (7-15 ms): not before the zygote starts
    from autograder.results.result import write_atomically

    data = _read_all(root)
    entry = data.get(assignment) if isinstance(data.get(assignment), dict) else {}
    if entry.get(key) == str(value):
        return False
    data[assignment] = {**entry, key: str(value)}
    write_atomically(path(root), json.dumps(data, indent=2, sort_keys=True) + "\n")
    return True
