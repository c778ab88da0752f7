"""What a course root holds, at a glance (TAs): graded, waiting for a person and why, the
course's settings, and each output with when it was written and whether it is current.

An output is current when it is at least as new as the grades it shows: the newest saved
result and decision of the root. One that is older names the command that brings
it up to date (every command that changes a grade already does: this is how to check).

examples:
  python -m autograder status
  python -m autograder status --root ~/courses/dl-2026-fall-a
  python -m autograder status --root ~/courses/dl-2026-fall-a --assignment hw3
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_graded_root_arguments, graded_course
from autograder.base import closed
from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
from autograder.base.safe_text import shown_id
from autograder.results import root_settings
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    SubmissionResult,
    saved_results,
    unreadable,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.views.released_feedback import Released


@dataclass(frozen=True)
class Output:
    """One output of the root: its name, when it was written, and whether it is current."""

    name: str
    written: datetime
    current: bool
    fix: str = ""  # the command that refreshes it, when it is not current


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_graded_root_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        course, assignment = graded_course(args)
        for line in status_lines(course, assignment):
            print(line)
    except root_settings.RootSettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def record_time(course: Course) -> datetime | None:
    """When the grades of the root last changed: its newest results.json or decisions.json
    (a changed due date or policy in course.json regrades, so it shows in results.json;
    course.json alone also changes for settings that change no grade, such as LMS columns)."""
    # results.decisions (hashlib, 5 ms): not at a command's start
    from autograder.results.decisions import DECISIONS_JSON

    paths = [course.autograded(student) / RESULTS_JSON for student in course.students()]
    paths += [course.root / DECISIONS_JSON]
    times = [moment for moment in map(_mtime, paths) if moment is not None]
    return max(times, default=None)


def outputs(course: Course, assignment: Assignment) -> list[Output]:
    """Every output of the root that exists, oldest first."""
    # the LMS files (NumPy, 110 ms), the report (matplotlib, 590 ms): not at a command's start
    from autograder.integrations.lms.files import FILE_NAMES
    from autograder.publish.views import NBGRADER_EXPORT
    from autograder.report.build import REPORT_DIR
    from autograder.report.summary import SUMMARY_MD
    from autograder.views.nbgrader_feedback import feedback_page, without_copy
    from autograder.views.released_feedback import released

    newest = record_time(course)
    found: list[Output] = []

    def add(name: str, path: Path, fix: str, since: datetime | None = newest) -> None:
        written = _mtime(path)
        if written is not None:
            current = since is None or written >= since
            found.append(Output(name, written, current, "" if current else fix))

    regrade = f"python -m autograder autograde --root {course.root}"
    add("grades.csv", course.grades_csv(), regrade)
    book = _mtime(course.gradebook_db())
    if book is None and any(result.has_total for result in saved_results(course)):
        found.append(Output("gradebook.db", datetime.min.replace(tzinfo=UTC), False,
                            f"MISSING: {regrade} (it writes every graded score into a new "
                            "one; formgrader and nbgrader export read it)"))
    if book is not None:  # by content: a write that changes nothing leaves the file's time
        disagree = gradebook_disagrees(course)
        found.append(Output("gradebook.db", book, not disagree, "" if not disagree else
                            f"{regrade} (its scores differ for {', '.join(map(shown_id, disagree[:5]))})"))
    for name in (*FILE_NAMES, SUMMARY_MD):
        add(name, course.root / name, "python -m autograder cohort export <cohort>")
    add(NBGRADER_EXPORT, course.root / NBGRADER_EXPORT,
        f"nbgrader export --to {NBGRADER_EXPORT} (in the course root)")
    add(f"{REPORT_DIR}/report.html", course.root / REPORT_DIR / "report.html",
        f"python -m autograder report --root {course.root}")
    copies = [(student, feedback_page(course, student, assignment)) for student in course.students()]
    copies = [(student, page) for student, page in copies if page.is_file()]
    if copies:  # by content: a copy is rewritten only when its page changed
        never = datetime.min.replace(tzinfo=UTC)
        stale = [student for student, page in copies
                 if _bytes(page) != _bytes(course.autograded(student) / FEEDBACK_HTML)]
        missing = without_copy(course, assignment)  # graded later: release_feedback skips them
        oldest = min(_mtime(page) or never for _, page in copies)
        said = "; ".join(f"{what}: {', '.join(map(shown_id, who[:5]))}"
                         f"{', ...' if len(who) > 5 else ''}"
                         for what, who in (("stale", stale), ("no copy yet", missing)) if who)
        found.append(Output(f"feedback copies ({len(copies)}, for release_feedback)", oldest,
                            not (stale or missing),
                            f"python -m autograder cohort feedback <cohort> ({said})"
                            if said else ""))
        found += _released(course, assignment, released(course, assignment))
    return sorted(found, key=lambda output: output.written)


def _released(course: Course, assignment: Assignment, shown: Released) -> list[Output]:
    """The pages ``release_feedback`` put in the exchange, when any of the root's are there:
    current when each is the student's current copy."""
    if not shown.pages:
        return []
    never = datetime.min.replace(tzinfo=UTC)
    written = min(_mtime(page) or never for page in shown.pages)
    said = "; ".join(f"{what}: {', '.join(map(shown_id, who[:5]))}{', ...' if len(who) > 5 else ''}"
                     for what, who in (("older than the grade", shown.older),
                                       ("not released", shown.missing)) if who)
    fix = f"cd {course.root} && nbgrader release_feedback {assignment.name} ({said})"
    return [Output(f"released feedback ({len(shown.pages)}, in the exchange)", written,
                   not said, fix if said else "")]


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def gradebook_disagrees(course: Course) -> list[str]:
    """The graded students whose score in the gradebook, as ``nbgrader export`` computes it
    (its own export plugin), differs from their results.json."""
    # publish.views (1.3 ms): not at a command's start
    from autograder.publish.views import nbgrader_export

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "export.csv"
        try:
            nbgrader_export(course, target)
        except Exception as error:  # a gradebook nbgrader cannot read: stale, and why
            return [f"all (nbgrader cannot read it: {type(error).__name__}: {error})"]
        with target.open(newline="", encoding="utf-8") as handle:
            scores = {row["student_id"]: row["score"] for row in csv.DictReader(handle)
                      if row["assignment"] == course.assignment}
    return sorted(result.student for result in saved_results(course)
                  if result.status == STATUS_GRADED
                  and (result.student not in scores
                       or abs(float(scores[result.student] or 0) - result.score) > 1e-6))


def status_lines(course: Course, assignment: Assignment) -> list[str]:
    """What ``status`` prints for ``course``."""
    settings = root_settings.load(course.root, course.assignment)
    students = course.students()
    results = {result.student: result for result in saved_results(course)}
    graded = [results[s] for s in students if s in results]
    waiting = [s for s in students if s not in results or results[s].status == STATUS_ERROR]
    broken = {s: why for s in waiting if s not in results
              and (why := unreadable(course.autograded(s) / RESULTS_JSON))}
    waiting = [s for s in waiting if s not in broken]
    resubmitted = [s for s in students if s in results and s not in waiting
                   and _resubmitted(course, results[s])]
    lines = [f"course root {course.root}: {assignment.name}",
             f"bundle: {_bundle_place(assignment)}",
             f"settings: {root_settings.shown(settings)}",
             f"access: {_access(course.root)}"]
    lines += _change_lines(course.root)
    by_status: dict[str, int] = {}
    for result in graded:
        by_status[result.status] = by_status.get(result.status, 0) + 1
    counts = ", ".join(f"{count} {status}" for status, count in sorted(by_status.items()))
    lines.append(f"submissions: {len(students)} ({counts or 'none graded'})")
    if waiting:
        lines.append(f"  not graded yet: {', '.join(map(shown_id, waiting[:10]))}"
                     f"{', ...' if len(waiting) > 10 else ''} (run autograde: it grades what has "
                     "no result)")
    if resubmitted:
        lines.append(f"  not graded yet (resubmitted): {', '.join(map(shown_id, resubmitted[:10]))}"
                     f"{', ...' if len(resubmitted) > 10 else ''} (every output shows the "
                     "earlier submission's grade until autograde grades it)")
    lines += [f"  unreadable: {_inside(course, course.autograded(s) / RESULTS_JSON)} of "
              f"{shown_id(s)} ({why}): autograde regrades it" for s, why in broken.items()]
    review = [result for result in graded if result.needs_review]
    lines.append(f"to review: {len(review)}")
    lines += [line for result in review for line in _review_lines(result)]
    lines.append("outputs (oldest first):")
    for output in outputs(course, assignment):
        if output.fix.startswith("MISSING"):
            lines.append(f"  {output.name:<44} {output.fix}")
            continue
        state = "current" if output.current else f"STALE: {output.fix}"
        if output.current and (resubmitted or broken):  # current with the record, not the work
            state = "current with results.json (not with the submissions above)"
        lines.append(f"  {output.name:<44} {_when(output.written)}  {state}")
    return lines


def _inside(course: Course, path: Path) -> str:
    """``path`` as the root's own (``autograded/<student>/<assignment>/results.json``)."""
    return shown_id(path.relative_to(course.root).as_posix())


def _change_lines(root: Path) -> list[str]:
    """A command changing the root now (its outputs may change when it ends), or one that did
    not finish (the next command that changes the root rolls it back)."""
    # batch.root_lock, results.journal: cheap
    from autograder.batch.root_lock import holder
    from autograder.results import journal

    running = holder(root)
    if running:
        return [f"IN PROGRESS: {running}; what follows may change when it ends (run status "
                "again then)"]
    left = journal.pending(root)
    if left is not None:
        return [f"UNFINISHED: {left.get('what', 'a command')} (pid {left.get('pid', '?')}, "
                f"since {left.get('since', '?')}) did not finish; the next command that changes "
                "the root rolls it back (nothing of it is kept): run it again"]
    return []


def _resubmitted(course: Course, result: SubmissionResult) -> bool:
    """Whether the student's submission changed since ``result`` was graded (its content
    hash, as autograde compares it, is neither the graded one nor a kept version's)."""
    # grading.submission (hashing; 2 ms): not at a command's start
    from autograder.grading.submission import content_hash

    if not result.submission_hash:  # a result that never recorded one: nothing to compare
        return False
    now = content_hash(course.submitted(result.student))
    kept = [str(v.get("hash", "")) for v in (result.version or {}).get("versions") or []]
    return now != result.submission_hash and not any(h and now.startswith(h) for h in kept)


def _bundle_place(assignment: Assignment) -> str:
    """Where the assignment's bundle was found: the package's, or its folder."""
    if assignment.origin == "package":
        return "the grader's own (autograder/bundles)"
    return str(assignment.root.resolve())


def _access(root: Path) -> str:
    """Who may enter the root: the TA alone, a team group, or (one line with the fix) others."""
    opened = closed.open_root_line(root)
    if opened:
        return "OPEN: " + opened
    team = closed.team_of(root)
    return f"closed to all but the team group {team}" if team else "closed to all but its owner"


def _review_lines(result: SubmissionResult) -> list[str]:
    """Why ``result`` waits for a person: its reason, the parts in review and what only TAs
    read (an integrity finding, such as whose inputs a copied evidence file holds)."""
    lines = [f"  {shown_id(result.student)}: "
             + (f"{result.score:g}/{result.max_score:g}" if result.has_total else "no total")
             + ("" if result.status == STATUS_GRADED else f" ({result.status})")
             + (f": {result.reason}" if result.reason else "")]
    lines += [f"    {part.part}: provisional ({part.points:g}/{part.max_points:g})"
              for part in result.parts if part.needs_review]
    lines += [f"    for TAs: {note.text}" for note in result.ta_notes]
    return lines
