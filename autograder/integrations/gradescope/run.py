"""Grade one submission the way Gradescope's ``run_autograder`` expects.

Grades ASSIGNMENT: the one named, else the one the zip's configuration file names
(--config, which the zip's run_autograder passes), else the one assignment there is.
Reads the submission folder (default /autograder/submission) and writes
results.json (default /autograder/results/results.json, Gradescope's fields, Markdown
texts) plus feedback.html beside it. The notebook is looked for at the top of the
submission folder, else in its one subfolder that holds a notebook (a student who uploads
the assignment's folder). The student id, which decides the evidence inputs, comes from
--student-id, else from Gradescope's submission_metadata.json: the first user's sid, else
what the zip's configuration maps (the email, its part before the @, or a roster); with
none, the submission is graded without an identity check and flagged for a person. The
submission time (created_at) is judged against the due date (the user's own, else the
assignment's), and the zip's late policy, if any, applied. What needs a person is a hidden
test entry ("needs a person", staff only) and a line of this command's output. The zip's
configuration also says when students see the hidden checks' results (its
hidden_visibility; without --config, after the due date); whether the notebook could be
graded shows at once.
`python -m autograder gradescope build` writes the zip whose run_autograder calls this.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_assignment_arguments, only_assignment
from autograder.base import stages
from autograder.integrations.gradescope import zip_config
from autograder.integrations.gradescope.scripts import CONFIG_JSON
from autograder.integrations.gradescope.zip_config import ZipConfig
from autograder.results import note_codes
from autograder.results.message import Message
from autograder.sandbox.zygote import Zygote, discard

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.grading.submission import Submission
    from autograder.integrations.gradescope.metadata import Identity
    from autograder.results.result import SubmissionResult

DEFAULT_ROOT = Path("/autograder")
RESULTS_JSON = "results.json"
METADATA_JSON = "submission_metadata.json"
CONFIGURED = "the one --config names, else the one there is"
SHOWN_ENTRIES = 8  # of an upload without a notebook, the names said back to the student
NOT_FOLDERS = ("__MACOSX",)  # a zip's resource forks: never a student's folder


class PathError(ValueError):
    """A path option that cannot be used as given; the message is one line for the TA."""


def student_from_metadata(metadata: Path) -> str | None:
    """The first user's sid in Gradescope's submission_metadata.json (None without one)."""
    # jsonschema through the lateness receipts (0.1 s): not before the zygote is launched
    from autograder.integrations.gradescope import metadata as gradescope_metadata

    data, _ = gradescope_metadata.load(metadata)
    return gradescope_metadata.identify(data, ZipConfig("")).student_id


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_assignment_arguments(parser, optional=True, when_left_out=CONFIGURED)
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help=f"the zip's {CONFIG_JSON}: which assignment it grades (written "
                             "by `gradescope build`; its run_autograder passes it)")
    parser.add_argument("--submission", type=Path, default=DEFAULT_ROOT / "submission",
                        help="folder with the notebook and evidence file (default: %(default)s)")
    parser.add_argument("--results", default=str(DEFAULT_ROOT / "results" / RESULTS_JSON),
                        help="where to write results.json, or a folder to write it in "
                             "(default: %(default)s)")
    parser.add_argument("--metadata", type=Path, default=DEFAULT_ROOT / METADATA_JSON,
                        help="Gradescope's submission metadata, or the folder that holds it "
                             "(default: %(default)s)")
    parser.add_argument("--student-id", help="student id (default: from the metadata)")
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from")
    parser.add_argument("--allow-weaker-isolation", action="store_true",
                        help="grade even where full isolation cannot be applied (recorded)")


def read_config(path: Path) -> tuple[str, list[Path]]:
    """The assignment a zip's configuration file names, and its folders of bundles
    (resolved against the file's folder); ``SpecError`` (one line) when it cannot be read."""
    config = zip_config.read(path)
    return config.assignment, [path.parent / folder for folder in config.assignments]


def chosen_config(args: argparse.Namespace) -> ZipConfig:
    """``--config``'s configuration (``SpecError`` when unreadable), else the defaults: ids
    from ``sid`` only, no late policy."""
    if args.config is None:
        return ZipConfig(args.assignment or "")
    return zip_config.read(args.config)


def chosen_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment to grade: named, else ``--config``'s, else the one there is (a
    ``SpecError`` naming the choices when there are several)."""
    if not args.assignment and args.config is not None:
        args.assignment, folders = read_config(args.config)
        args.assignments = [*folders, *(args.assignments or [])]
    return only_assignment(args)


def submitted_files(assignment: Assignment) -> str:
    """What a student uploads, in words: the notebook, and the evidence file if any."""
    files = [assignment.notebook, *([assignment.evidence_file] if assignment.evidence_file
                                    else [])]
    return " and ".join(files)


def resolve_paths(args: argparse.Namespace, assignment: Assignment) -> None:
    """Take each path option as a TA passes it, as Gradescope lays the files out: a folder for
    ``--results`` or ``--metadata`` means the file of Gradescope's name inside it. Else
    ``PathError``, before anything is graded (not a traceback after it)."""
    submission: Path = args.submission
    if not submission.exists():
        raise PathError(f"--submission {submission}: no such folder; pass the folder that holds "
                        f"{submitted_files(assignment)}")
    if not submission.is_dir():
        raise PathError(f"--submission {submission} is a file; pass the folder that holds it "
                        f"({submitted_files(assignment)})")
    given = str(args.results)  # a str: Path() would drop the trailing "/" of a new folder
    results_path = Path(given)
    if results_path.is_dir() or given.endswith(("/", os.sep)):
        results_path = results_path / RESULTS_JSON
    for parent in (results_path.parent, *results_path.parent.parents):
        if parent.exists() and not parent.is_dir():
            raise PathError(f"--results {args.results}: {parent} is a file, not a folder; pass "
                            f"a folder or a path ending in {RESULTS_JSON}")
    args.results = results_path
    metadata: Path = args.metadata
    if metadata.is_dir():
        metadata = metadata / METADATA_JSON
    if not args.student_id and metadata != DEFAULT_ROOT / METADATA_JSON and not metadata.is_file():
        raise PathError(f"--metadata {args.metadata}: no such file; pass Gradescope's "
                        f"{METADATA_JSON}, or the student id with --student-id")
    args.metadata = metadata


def _has_notebook(folder: Path) -> bool:
    return any(path.suffix == ".ipynb" and path.is_file() and not path.is_symlink()
               and not path.name.startswith(".") for path in folder.iterdir())


def _name(path: Path) -> str:
    """A file name of the student's as a message shows it: short, one printable line."""
    return "".join(c if c.isprintable() else "?" for c in path.name[:60])


def _listing(folder: Path) -> str:
    """What the top of an upload holds, in a few names (folders end in /)."""
    entries = [entry for entry in sorted(folder.iterdir()) if entry.name not in NOT_FOLDERS]
    names = [f"{_name(entry)}{'/' if entry.is_dir() else ''}"
             for entry in entries[:SHOWN_ENTRIES]]
    more = len(entries) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "") if names else "nothing"


def submission_folder(folder: Path, assignment: Assignment) -> tuple[Path, str, str]:
    """(the folder to grade, a note for the student, why nothing can be graded): the upload
    itself when a notebook is at its top, else its one subfolder holding a notebook (one level
    down only); several such subfolders, or none, is said with what was found."""
    if folder.is_symlink() or not folder.is_dir() or _has_notebook(folder):
        return folder, "", ""
    subfolders = [path for path in sorted(folder.iterdir())
                  if path.is_dir() and not path.is_symlink() and not path.name.startswith(".")
                  and path.name not in NOT_FOLDERS]
    holding = [path for path in subfolders if _has_notebook(path)]
    if len(holding) == 1:
        return holding[0], (f"your files were found in the folder {_name(holding[0])!r} of your "
                            "upload and graded there"), ""
    if holding:
        names = ", ".join(repr(_name(path)) for path in holding[:SHOWN_ENTRIES])
        return folder, "", (f"no notebook at the top of your upload, and several folders hold "
                            f"notebooks ({names}): none was graded; upload "
                            f"{submitted_files(assignment)} at the top, or in one folder")
    return folder, "", (f"no notebook was submitted (expected {assignment.notebook}, at the "
                        f"top of your upload or in one folder of it); your upload holds "
                        f"{_listing(folder)}")


def review_lines(result: SubmissionResult) -> list[str]:
    """Why a person must look, for the instructor: the reason, then what else the result
    says (notes, the TA's notes, parts to read, grader faults), each once."""
    lines = [result.reason] if result.reason else []
    lines += [note.text for note in [*result.notes, *result.ta_notes]
              if note.text not in result.reason]
    lines += [f"part {part.part} is to be read by a person" for part in result.parts
              if part.needs_review]
    lines += [f"grader fault: {fault}" for fault in result.faults]
    return list(dict.fromkeys(line for line in lines if line))


def prepare(submission: Submission, identity: Identity,
            assignment: Assignment, found_note: str, fatal: str) -> None:
    """What the upload and the metadata add to the submission before it is graded: where
    its files were found, and a person's look when no student id can check its evidence."""
    # imported by the command by now (see _run)
    from autograder.integrations.gradescope import metadata as gradescope_metadata

    if found_note:
        submission.notes.insert(0, Message(found_note, code=note_codes.SUBMISSION))
    if fatal and submission.notebook is None:
        submission.fatal = fatal
    if identity.student_id is None and assignment.evidence_file:
        submission.note(gradescope_metadata.NO_ID_NOTE, note_codes.SUBMISSION, review=True)
    if identity.group > 1:
        note = (f"this submission lists {identity.group} Gradescope users and was graded as the "
                "first one's; a person will check it before its grade is final")
        submission.note(note, note_codes.SUBMISSION, review=True)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    stages.add("start-up: the interpreter, imports", *stages.since_start())
    try:
        return _run(args, started)
    finally:
        stages.save("run-autograder")


def _run(args: argparse.Namespace, started: float) -> int:
    config = chosen_config(args)  # a SpecError is one line (autograder.cli)
    assignment = chosen_assignment(args)
    try:
        resolve_paths(args, assignment)
    except PathError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    # The zygote first: it imports the assignment's libraries (torch) while this process
    # imports the grader, as `autograde` does (about 0.25 s sooner than after the imports).
    launched = Zygote.launch(preload=assignment.preload, hide=assignment.private_folders)
    try:
        return _grade(args, started, config, assignment, launched[0])
    finally:
        discard(launched)  # unless the session took it


def _grade(args: argparse.Namespace, started: float, config: ZipConfig,
           assignment: Assignment, zygote: Zygote) -> int:
    # the grader: after the zygote is launched, so both warm up at once
    from autograder.grading.grade_one import GradingSession, grade_submission
    from autograder.grading.submission import load_submission
    from autograder.integrations.gradescope import metadata as gradescope_metadata
    from autograder.integrations.gradescope import results
    from autograder.sandbox.client import IsolationError
    from autograder.sandbox.uids import UidLeaseError
    from autograder.views import feedback_page as report

    data, unreadable = gradescope_metadata.load(args.metadata)
    identity = gradescope_metadata.identify(data, config, args.student_id)
    # The id decides only the evidence inputs: without an evidence file, none is needed.
    problem = identity.problem if assignment.evidence_file else ""
    folder, found_note, fatal = submission_folder(args.submission, assignment)
    submission = load_submission(folder, identity.student_id or "", assignment=assignment)
    prepare(submission, identity, assignment, found_note, fatal)
    try:
        with stages.stage("start-up: launch the zygote, import and collect the checks"):
            session = GradingSession.start(assignment, allow_weaker=args.allow_weaker_isolation,
                                           launched=zygote)
        try:
            result = grade_submission(submission, session, cohort=args.cohort)
        finally:
            with stages.stage("end: stop the zygote"):
                session.close()
    except (IsolationError, UidLeaseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    result.student = identity.label
    for line in (unreadable, problem):
        if line:
            result.ta_note(line, note_codes.GRADESCOPE_METADATA)
    gradescope_metadata.mark(result, gradescope_metadata.timing(data), config.late_policy)
    details = {"student_id_from": identity.source or "none", "users": identity.group}
    try:
        with stages.stage("write: results.json (Gradescope's), feedback.html"):
            results.save(result, time.monotonic() - started, args.results, assignment,
                         gradescope=details, review=review_lines(result),
                         hidden_visibility=config.hidden_visibility)
            report.save(result, args.results.with_name("feedback.html"), assignment)
    except OSError as error:
        print(f"error: cannot write {args.results} (or feedback.html beside it): "
              f"{error.strerror or error}", file=sys.stderr)
        return 2
    if problem:
        print(problem)
    if result.needs_review:
        why = [line for line in review_lines(result) if line != problem]
        print(f"needs a person: {'; '.join(why) or problem}")
    late = (f", late (due {result.due})" if result.late else "") + (
        f", late penalty -{result.late_penalty:g}" if result.late_penalty else "")
    print(f"{result.student}: {result.score:g} / {result.max_score:g} ({result.status}{late}) "
          f"-> {args.results}")
    return 0
