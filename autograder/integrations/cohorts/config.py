"""Read ``cohorts.toml``: which cohorts exist, their course ids, due dates and roots."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments import available
from autograder.assignments.remembered import load_in_root
from autograder.base import closed
from autograder.base.course import assignments_in, parse_time
from autograder.batch.due_dates import FIRST_YEAR, LAST_YEAR
from autograder.integrations.cohorts.archives import MB, ArchiveLimits, MoodleDownload
from autograder.integrations.lms.canvas import CanvasSettings
from autograder.integrations.lms.moodle import MoodleSettings
from autograder.integrations.lms.roster import STUDENT_ID
from autograder.results.late_policy import LatePolicy, LatePolicyError, from_table
from autograder.results.root_settings import due_text
from autograder.results.version_rules import VersionRuleError, parse
from autograder.spec import REPO, SpecError

if TYPE_CHECKING:
    from autograder.assignments import Assignment

CONFIG = REPO / "cohorts.toml"
COURSE_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
# The exchange when cohorts.toml names none. Not nbgrader's own default
# (/usr/local/share/nbgrader/exchange): cohorts.toml says why, and that students'
# nbgrader_config.py must set the same Exchange.root.
EXCHANGE = "/srv/nbgrader/exchange"
# A due date needs a date, a time and a zone: a deadline read in the wrong zone is hours off.
DUE_FORMS = '"2026-12-14 23:59:00 UTC", "2026-12-14T23:59:00Z" or "2026-12-14 23:59:00+01:00"'
HAS_TIME = re.compile(r"\d[ T]\d{1,2}:\d{2}")
# How the files of an LMS download are named when cohorts.toml does not say:
# <student id>__<file name>, split at the first "__"; a student id is what Moodle allows in
# a username (letters, digits, _ - . @), never "/", a leading "." or "..".
LMS_FILENAME_REGEXP = rf".*/(?P<student_id>{STUDENT_ID}?)__(?P<file_id>[^/]+)$"


def _exchange(base: Path, value: object) -> Path | None:
    """The cohort's exchange, relative to cohorts.toml's folder; None for ``exchange = ""``
    (an LMS-only cohort: no nbgrader exchange, its submissions come in with --zip)."""
    if value in ("", False):
        return None
    return (base / str(value)).resolve()


class CohortConfigError(ValueError):
    """cohorts.toml is missing, malformed, or does not name the cohort asked for."""


@dataclass(frozen=True)
class Cohort:
    """One run of an assignment: which one, its course id, due date and course root."""

    name: str
    course_id: str
    due: datetime | None  # in UTC
    root: Path
    exchange: Path | None  # None: an LMS-only cohort (``exchange = ""``), collected with --zip
    assignment: str  # the assignment bundle's name (and nbgrader's assignment's)
    # Folders of assignment bundles besides the package's (--assignments, cohorts.toml's
    # ``assignments``), where ``bundle`` finds it.
    assignment_folders: tuple[Path, ...] = ()
    lms_filename_regexp: str = ""
    due_as_written: datetime | None = field(default=None, compare=False)  # in its own zone
    # The grade files `cohort export` writes for Canvas's and Moodle's gradebook import
    # (by default named after the assignment: ``lms_settings``).
    canvas: CanvasSettings | None = None
    moodle: MoodleSettings | None = None
    # How `cohort collect --zip` reads Moodle's own download: cohorts.toml's moodle_roster
    # (the assignment's grading worksheet) maps its participant ids to student ids.
    moodle_download: MoodleDownload | None = None
    # How far `cohort collect --zip` unpacks an LMS download (cohorts.toml's zip_max_* keys).
    archive_limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    # The penalty for late work ([late_policy], course-wide or the cohort's own) and the
    # students' own due dates ([cohorts.<name>.extensions]: student = due date).
    late_policy: LatePolicy = field(default_factory=LatePolicy)
    extensions: dict[str, datetime] = field(default_factory=dict)
    # Which kept version of a student's submission counts (autograder.batch.version_rule):
    # ``version_rule = "last_on_time"`` in the cohort (or [defaults]); "newest" when unset.
    version_rule: str = "newest"
    # The Unix group of the teaching team (cohorts.toml's ``team_group``): the course root is
    # made 2770 for it; without one, 0700 (``autograder.base.closed``).
    team_group: str | None = None
    # Whose Unix user owns a student's folders in the exchange (``cohort collect`` refuses
    # others): ``[cohorts.<name>.unix_users]`` student id = Unix user name; unset: the id.
    unix_users: dict[str, str] = field(default_factory=dict)
    # The cohorts.toml this cohort was read from (absolute): its root's settings of record.
    config: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.canvas is None:
            object.__setattr__(self, "canvas", CanvasSettings(self.assignment))
        if self.moodle is None:
            object.__setattr__(self, "moodle", MoodleSettings(self.assignment))
        if self.moodle_download is None:
            object.__setattr__(self, "moodle_download",
                               MoodleDownload(None, self.moodle.identifier))

    def bundle(self) -> Assignment:
        """The assignment this cohort is given: from its folders, else where its course root
        remembers the bundle (``UnknownAssignment``, ``BundleGone``: one line)."""
        return load_in_root(self.root, self.assignment, self.assignment_folders)

    def due_text(self) -> str:
        """The due date with its zone: '2026-12-14 23:59 UTC', or as written and in UTC
        ('2026-12-15 00:59 +01:00 = 2026-12-14 23:59 UTC')."""
        if self.due is None:
            return "no due date"
        utc = f"{self.due:%Y-%m-%d %H:%M} UTC"
        written = self.due_as_written
        offset = written.utcoffset() if written is not None else None
        if not offset:
            return utc
        sign, minutes = ("+" if offset >= timedelta(0) else "-"), abs(offset) // timedelta(minutes=1)
        return f"{written:%Y-%m-%d %H:%M} {sign}{minutes // 60:02d}:{minutes % 60:02d} = {utc}"


def parse_due(name: str, value: object, path: Path) -> datetime | None:
    """A cohort's due date as an aware datetime in the zone it was written in (None if none);
    ``CohortConfigError`` unless it has a date, a time and a time zone."""
    if value is None or value == "":
        return None
    shown = repr(value) if isinstance(value, str) else str(value)
    problem = f"cohort {name!r}: due date {shown} in {path}"
    fix = f"write it with a date, a time and a time zone: {DUE_FORMS}"
    if isinstance(value, datetime):  # a TOML date-time, written without quotes
        moment = value
    elif isinstance(value, str):
        text = value.strip()
        if not HAS_TIME.search(text):
            raise CohortConfigError(f"{problem} has no time: {fix}")
        try:
            moment = parse_time(text) if text.endswith("UTC") else datetime.fromisoformat(text)
        except ValueError:
            raise CohortConfigError(f"{problem} cannot be read: {fix}") from None
    else:
        raise CohortConfigError(f"{problem} is not a date and time: {fix}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise CohortConfigError(f"{problem} has no time zone: {fix}")
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise CohortConfigError(f"{problem} is in the year {moment.year}: a due date is between "
                                f"{FIRST_YEAR} and {LAST_YEAR}")
    return moment


def lms_settings(name: str, entry: dict, path: Path, assignment: str) -> dict[str, object]:
    """The cohort's ``canvas_*`` and ``moodle_*`` keys as the LMS settings (the column named
    after ``assignment`` by default; ``moodle_roster`` relative to the file);
    ``CohortConfigError`` on a value the importer could not take."""
    try:
        moodle = MoodleSettings(grade_item=str(entry.get("moodle_grade_item", assignment)),
                                identifier=str(entry.get("moodle_identifier", "username")))
        settings: dict[str, object] = {
            "canvas": CanvasSettings(
                assignment_name=str(entry.get("canvas_assignment_name", assignment)),
                assignment_id=str(entry.get("canvas_assignment_id", "")).strip(),
                student_column=str(entry.get("canvas_student_id", "SIS Login ID")),
            ),
            "moodle": moodle,
        }
    except ValueError as error:
        raise CohortConfigError(f"cohort {name!r} in {path}: {error}") from None
    roster = entry.get("moodle_roster")
    if roster is not None and (not isinstance(roster, str) or not roster.strip()):
        raise CohortConfigError(f"cohort {name!r} in {path}: moodle_roster = {roster!r} is not "
                                "the path of the assignment's grading worksheet (a CSV file)")
    if roster is not None and moodle.identifier == "id":
        raise CohortConfigError(f"cohort {name!r} in {path}: moodle_identifier = \"id\" cannot "
                                "be read from moodle_roster (Moodle's grading worksheet holds "
                                "no user id): use \"username\", \"idnumber\" or \"email\"")
    where = (Path(path).resolve().parent / roster.strip()) if roster else None
    settings["moodle_download"] = MoodleDownload(where, moodle.identifier)
    return settings


def archive_limits(name: str, entry: dict, path: Path) -> ArchiveLimits:
    """The cohort's ``zip_max_megabytes``, ``zip_max_files`` and ``zip_max_ratio`` (the
    defaults where unset); ``CohortConfigError`` unless each is a number above zero."""
    default = ArchiveLimits()
    values = {}
    for key, fallback in (("zip_max_megabytes", default.max_bytes / MB),
                          ("zip_max_files", default.max_files),
                          ("zip_max_ratio", default.max_ratio)):
        value = entry.get(key, fallback)
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not 0 < value < float("inf")):
            raise CohortConfigError(f"cohort {name!r} in {path}: {key} = {value!r} is not a "
                                    f"finite number above zero (default {fallback:g})")
        values[key] = value
    return ArchiveLimits(max_bytes=int(values["zip_max_megabytes"] * MB),
                         max_files=int(values["zip_max_files"]),
                         max_ratio=float(values["zip_max_ratio"]))


def _folders(name: str, value: object, base: Path, path: Path) -> tuple[Path, ...]:
    """cohorts.toml's ``assignments``: a folder of assignment bundles, or a list of them,
    relative to the file."""
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        raise CohortConfigError(f"cohort {name!r} in {path}: assignments = {value!r} is not a "
                                "folder of assignment bundles or a list of them")
    return tuple((base / item).resolve() for item in listed)


def default_assignment(name: str, root: Path, folders: Iterable[Path], path: Path) -> str:
    """The assignment of a cohort that names none: the one its course root holds, else the
    one there is to grade; ``CohortConfigError`` naming the choices otherwise."""
    in_root = assignments_in(root)
    try:
        choices = in_root or [found.name for found in available(folders)]
    except SpecError as error:  # a folder of bundles that does not exist
        raise CohortConfigError(f"cohort {name!r} in {path}: {error}") from None
    if len(choices) == 1:
        return choices[0]
    where = f"its course root {root} holds" if in_root else "the assignments here are"
    raise CohortConfigError(f"cohort {name!r} in {path} names no assignment and {where} "
                            f"{', '.join(choices) or 'none'}: add assignment = \"<name>\" to "
                            "it (or to [defaults])")


def load_cohorts(path: Path = CONFIG, *, assignment: str | None = None,
                 folders: Iterable[Path | str] = ()) -> dict[str, Cohort]:
    """Every declared cohort, by name. ``assignment``: grade this one in every cohort,
    whatever cohorts.toml says; ``folders``: more folders of assignment bundles."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CohortConfigError(f"cannot read {path}: {error}") from None
    defaults = data.get("defaults", {})
    base = Path(path).resolve().parent
    given = tuple(Path(folder).expanduser().resolve() for folder in folders)
    cohorts = {}
    for name, entry in data.get("cohorts", {}).items():
        merged = {**defaults, **entry}
        course_id = merged.get("course_id", name)
        if not COURSE_ID.match(course_id):
            raise CohortConfigError(f"cohort {name!r}: course id {course_id!r} has odd characters")
        due = parse_due(name, merged.get("due"), Path(path))
        root = (base / merged.get("courses_root", "courses") / name).resolve()
        bundles = given + _folders(name, merged.get("assignments", []), base, Path(path))
        graded = str(assignment or merged.get("assignment")
                     or default_assignment(name, root, bundles, Path(path)))
        cohorts[name] = Cohort(
            name=name,
            course_id=course_id,
            due=due.astimezone(UTC) if due else None,
            root=root,
            exchange=_exchange(base, merged.get("exchange", EXCHANGE)),
            assignment=graded,
            assignment_folders=bundles,
            lms_filename_regexp=merged.get("lms_filename_regexp", LMS_FILENAME_REGEXP),
            due_as_written=due,
            **lms_settings(name, merged, Path(path), graded),
            archive_limits=archive_limits(name, merged, Path(path)),
            late_policy=_late_policy(name, merged.get("late_policy", data.get("late_policy", {})),
                                     Path(path)),
            extensions=_extensions(name, merged.get("extensions", {}), Path(path), due),
            version_rule=_version_rule(name, merged.get("version_rule", "newest"), Path(path)),
            team_group=_team_group(name, merged.get("team_group"), Path(path)),
            unix_users=_unix_users(name, merged.get("unix_users", {}), Path(path)),
            config=Path(path).resolve(),
        )
    return cohorts


def _team_group(name: str, value: object, path: Path) -> str | None:
    """The cohort's ``team_group``: a group of this machine, or none."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise CohortConfigError(f"cohort {name!r} in {path}: team_group is not a group's name")
    try:
        closed.group_id(value)
    except closed.TeamGroupError as error:
        raise CohortConfigError(f"cohort {name!r} in {path}: {error}") from None
    return value


def _late_policy(name: str, table: object, path: Path) -> LatePolicy:
    """``[late_policy]`` (course-wide) or the cohort's own: percent, per, cap, grace_minutes."""
    if not isinstance(table, dict):
        raise CohortConfigError(f"cohort {name!r} in {path}: late_policy is not a table "
                                "(percent, per, cap, grace_minutes)")
    try:
        return from_table(table)
    except LatePolicyError as error:
        raise CohortConfigError(f"cohort {name!r} in {path}: {error}") from None


def _version_rule(name: str, value: object, path: Path) -> str:
    """The cohort's ``version_rule``: newest, last_on_time or best_after_penalty."""
    try:
        return parse(value) if isinstance(value, str) else parse(repr(value))
    except VersionRuleError as error:
        raise CohortConfigError(f"cohort {name!r} in {path}: {error}") from None


def _unix_users(name: str, table: object, path: Path) -> dict[str, str]:
    """``[cohorts.<name>.unix_users]``: student id = the Unix user who submits as them."""
    if not isinstance(table, dict) or not all(
            isinstance(user, str) and user.strip() for user in table.values()):
        raise CohortConfigError(f"cohort {name!r} in {path}: unix_users is not a table of "
                                "student id = Unix user name")
    return {str(student): user.strip() for student, user in table.items()}


def _extensions(name: str, table: object, path: Path,
                cohort_due: datetime | None = None) -> dict[str, datetime]:
    """``[cohorts.<name>.extensions]``: student id = due date (date, time and zone), each
    after the cohort's due date: one that is not (the class deadline moved past it, a year
    typed early) would make its student late sooner, so it is refused."""
    if not isinstance(table, dict):
        raise CohortConfigError(f"cohort {name!r} in {path}: extensions is not a table of "
                                "student = due date")
    found = {}
    for student, value in table.items():
        due = parse_due(f"{name}, extension of {student}", value, path)
        if due is None:
            continue
        if cohort_due is not None and due <= cohort_due:
            raise CohortConfigError(
                f"cohort {name!r} in {path}: the extension of {student} ({due_text(due)}) "
                f"ends {'on' if due == cohort_due else 'before'} the cohort's due date "
                f"({due_text(cohort_due)}), so it would make {student} late sooner, not later: "
                "give a date after the due date in [cohorts."
                f"{name}.extensions], or remove the line")
        found[str(student)] = due.astimezone(UTC)
    return found


def get_cohort(name: str, path: Path = CONFIG, *, assignment: str | None = None,
               folders: Iterable[Path | str] = ()) -> Cohort:
    """The cohort called ``name``; ``CohortConfigError`` if the file does not declare it
    (``assignment``, ``folders``: as ``load_cohorts``)."""
    cohorts = load_cohorts(path, assignment=assignment, folders=folders)
    if name not in cohorts:
        known = ", ".join(sorted(cohorts)) or "none"
        raise CohortConfigError(f"no cohort {name!r} in {path} (declared: {known})")
    return cohorts[name]
