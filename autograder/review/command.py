"""What needs a person, and their decisions (TAs, no Jupyter needed).

`review list` shows every submission flagged for review: the parts to look at, why, and
the text a person must read (a limitation the machine could not judge). `review set`
records a TA's score for one part, with who and why; `review clear` takes it back;
`review history STUDENT` lists every decision ever made about a student (none is lost). A
decision is the grade of record from then on: results.json, feedback.html, grades.csv and
the gradebook (nbgrader export, formgrader) are rewritten at once, `cohort export` and
`report` follow, and a regrade (even --force) keeps it while the part it judged is
unchanged (otherwise the part goes back to review, saying so). Scores entered in
formgrader are read in as decisions too. Decisions live in decisions.json at the course
root. `set` and `clear` hold the course root like a grading run: while `autograde` (or
another command that writes the root) runs there, they refuse in one line naming it, and
nothing is recorded; `list` and `history` then show what is saved, without reading
formgrader's scores in. `--root`, `--assignment` and `--assignments` may come before or
after the action.

examples:
  python -m autograder review --root ~/courses/dl-2026-fall-a list
  python -m autograder review set s042 PART 6 --note "a sound point, argued too briefly"
  python -m autograder review clear s042 PART
  python -m autograder review list --assignment hw3 --assignments ~/course/bundles
  python -m autograder review history s042 --root ~/courses/dl-2026-fall-a
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import graded_course
from autograder.base.course import Course
from autograder.base.safe_text import shown_id
from autograder.batch.root_lock import RootBusy, hold
from autograder.batch.versions import graded_files
from autograder.report.command import add_root_assignment_arguments
from autograder.results.decisions import DecisionError, Decisions
from autograder.results.result import (
    SubmissionResult,
    UnreadableRecord,
    load,
    read,
    saved_results,
)
from autograder.views.gradebook import GradebookError, clear_manual_score
from autograder.views.graded_notebook import text_to_judge
from autograder.views.outputs import (
    import_formgrader,
    result_path,
    rewrite_student,
    unread_formgrader,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="nbgrader course root (default: the current directory)")
    add_root_assignment_arguments(parser, positional=False)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listed = actions.add_parser("list", help="submissions flagged for review, with why and what to read")
    chosen = actions.add_parser("set", help="record a TA's score for one part")
    chosen.add_argument("student")
    chosen.add_argument("part", help="one of the assignment's parts (as grades.csv names them)")
    chosen.add_argument("points", type=float)
    chosen.add_argument("--note", default="", help="why (the student reads it)")
    chosen.add_argument("--by", default="", help="who decided (default: your login name)")
    cleared = actions.add_parser("clear", help="take a decision back (the machine's score stands)")
    cleared.add_argument("student")
    cleared.add_argument("part")
    cleared.add_argument("--by", default="", help="who takes it back (default: your login name)")
    told = actions.add_parser("history", help="every decision about one student, oldest first")
    told.add_argument("student")
    for action in (listed, chosen, cleared, told):
        _also_after_the_action(action)


def _also_after_the_action(parser: argparse.ArgumentParser) -> None:
    """``review list --root DIR``, as TAs type it: the shared options after the action too
    (left out there, the values given before the action stand)."""
    parser.add_argument("--root", type=Path, default=argparse.SUPPRESS,
                        help="nbgrader course root (also before the action)")
    parser.add_argument("--assignment", metavar="NAME", default=argparse.SUPPRESS,
                        help="the assignment (also before the action)")
    parser.add_argument("--assignments", metavar="DIR", type=Path, action="append",
                        default=argparse.SUPPRESS,
                        help="a folder of assignment bundles (also before the action)")


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    try:
        course, assignment = graded_course(args)
        if args.action in ("set", "clear"):
            # One change of the root: all of it, or (Ctrl-C, a kill, an error) none of it.
            with hold(root):  # no grading run may write the root meanwhile (nor read stale)
                decisions = _read_in(course, assignment)
                return _decide(course, decisions, args, assignment)
        # `list` and `history` only read: what is saved, never formgrader's scores read in.
        decisions = Decisions.load(course.root)
        unread = unread_formgrader(course, decisions, assignment=assignment)
        if unread:
            shown = ", ".join(f"{shown_id(student)} {part} {score:g}"
                              for student, part, score in unread[:5])
            print(f"note: formgrader holds {len(unread)} score(s) no decision says yet ({shown}"
                  f"{', ...' if len(unread) > 5 else ''}): the next command that changes the "
                  "root (review set, autograde, export) records them", file=sys.stderr)
        if args.action == "list":
            return _list(course, decisions, assignment)
        return _history(course, decisions, args.student)
    except (DecisionError, GradebookError, RootBusy) as error:  # the TA's to fix: one line
        print(f"error: {error}", file=sys.stderr)
        return 2


def _read_in(course: Course, assignment: Assignment) -> Decisions:
    """The root's decisions, with the scores entered in formgrader since read in (saved) and
    written into every output at once (issue 37: they reached the gradebook and `review
    list`, while grades.csv, results.json and feedback.html kept the old total)."""
    decisions = Decisions.load(course.root)
    changed = []
    for entry in import_formgrader(course, decisions, assignment=assignment):
        print(f"from formgrader: {shown_id(entry.student)} {entry.part} {entry.describe()}")
        saved = load(result_path(course, entry.student))
        if saved is not None:
            final = rewrite_student(course, saved, decisions, assignment=assignment)
            print(written_line(final))
            changed.append(entry.student)
    if changed:
        _publish(course, assignment, sorted(set(changed)))
    return decisions


def unknown_student(course: Course, student: str, decisions: Decisions) -> str | None:
    """Why ``student`` is no student of this root (naming the closest ids), or None."""
    known = sorted({result.student for result in saved_results(course)}
                   | {entry.student for entry in decisions.parts.values()})
    if student in known:
        return None
    close = difflib.get_close_matches(student, known, n=3, cutoff=0.6)
    hint = (f"did you mean {' or '.join(map(shown_id, close))}?" if close
            else f"graded: {', '.join(map(shown_id, known[:10])) or 'none'}"
                 f"{', ...' if len(known) > 10 else ''}")
    return f"no graded result for {shown_id(student)} in {course.root} ({hint})"


def _list(course: Course, decisions: Decisions, assignment: Assignment) -> int:
    flagged = [result for result in saved_results(course) if result.needs_review]
    for result in flagged:
        print(f"{shown_id(result.student)}: "
              + (f"{result.score:g}/{result.max_score:g}" if result.has_total
                 else f"{result.status}, no total")
              + (f" ({result.reason})" if result.reason else ""))
        for note in result.ta_notes:  # an integrity finding grades.csv states (copied evidence)
            print(f"  for TAs: {note.text}")
        for part in result.parts:
            if part.needs_review:
                print(f"  {part.part}: {part.points:g}/{part.max_points:g} provisional")
                for message in part.messages:
                    print(f"    - {message.flat()}")
                if part.decided:
                    print(f"    - {part.decided}")
                text = text_to_judge(graded_files(course, result), part.part, assignment)
                if text:
                    print(f"    text: {text}")
    done = [entry for entry in decisions.parts.values()]
    print(f"{len(flagged)} to review; {len(done)} decision{'' if len(done) == 1 else 's'} "
          f"recorded (decisions.json). Record one: python -m autograder review set STUDENT PART "
          "POINTS --note WHY")
    return 0


def _history(course: Course, decisions: Decisions, student: str) -> int:
    events = decisions.history_of(student)
    if not events and (why := unknown_student(course, student, decisions)):
        raise DecisionError(why)
    for event in events:
        if event["action"] == "set":
            print(f"{event['at']}  {event['part']}: {event['points']:g} by {event['by']}"
                  + (f": {event['note']}" if event.get("note") else ""))
        else:
            print(f"{event['at']}  {event['part']}: decision of {event['was']:g} taken back "
                  f"by {event['by']}")
    print(f"{len(events)} decision{'' if len(events) == 1 else 's'} about {shown_id(student)}")
    return 0


def _decide(course: Course, decisions: Decisions, args: argparse.Namespace,
            assignment: Assignment) -> int:
    try:
        result = read(result_path(course, args.student))
    except UnreadableRecord as error:
        raise DecisionError(f"{error.path.relative_to(course.root).as_posix()} is unreadable "
                            f"({error.why}): run autograde (it regrades it), then decide again"
                            ) from None
    if result is None:
        raise DecisionError(unknown_student(course, args.student, decisions)
                            or f"no graded result for {shown_id(args.student)} in {course.root}: grade it "
                            "first")
    if args.action == "set":
        entry = decisions.set(result, args.part, args.points, by=args.by, note=args.note)
        print(f"{shown_id(args.student)} {args.part}: {entry.describe()}")
    else:
        if decisions.clear(args.student, args.part, by=args.by) is None:
            raise DecisionError(f"no decision for {shown_id(args.student)} {args.part} to clear")
        _clear_manual_score(course, result, args.part, assignment)
        print(f"{shown_id(args.student)} {args.part}: decision cleared; the machine's score stands")
    decisions.save()
    final = rewrite_student(course, result, decisions, assignment=assignment)
    print(written_line(final))
    return 1 if _publish(course, assignment, [args.student]) else 0  # a copy left stale


def said_when_interrupted(args: argparse.Namespace) -> str:
    """Ctrl-C: what was recorded (nothing: `set` and `clear` are all or nothing, and the
    others only read)."""
    if args.action not in ("set", "clear"):
        return f"interrupted: `review {args.action}` stopped before it finished; run it again"
    return ("interrupted: nothing was recorded (decisions.json and every output are as they "
            "were); run the same command again")


def written_line(result: SubmissionResult) -> str:
    """Where a decision went: the total everywhere, or, for a result with no total (an
    ungradable notebook: ``has_total``), that it has none and where its parts' points are."""
    if result.has_total:
        return (f"{shown_id(result.student)}: {result.score:g}/{result.max_score:g} in "
                "results.json, feedback.html, grades.csv and the gradebook")
    return (f"{shown_id(result.student)}: {result.status}, no total (its parts' points in "
            "results.json, feedback.html and grades.csv; the gradebook has no score for it)")


def _publish(course: Course, assignment: Assignment, students: list[str]) -> bool:
    """Every copy of the grades that exists in the root (feedback copies, LMS files, the
    report...) follows the decision before the command returns; whether one could not."""
    # publish.views (1.4 ms): not at a command's start
    from autograder.publish.views import publish

    published = publish(course, assignment, students)
    line = published.line()
    if line:
        print(line)
    return bool(published.stale)


def _clear_manual_score(course: Course, result: SubmissionResult, part: str,
                        assignment: Assignment) -> None:
    """A cleared decision clears formgrader's manual score too (else it would be read back)."""
    clear_manual_score(course, result.student, part, assignment=assignment)
