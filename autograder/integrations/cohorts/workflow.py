"""The course workflow for one cohort, each step one function (and one command).

release -> (students fetch and submit) -> collect / zip-collect -> grade ->
feedback -> export. Every step works in the cohort's own course root, which
holds an ``nbgrader_config.py`` naming the root, the course id and the
exchange, so plain ``nbgrader`` commands run there work as well.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments import remembered
from autograder.authoring import release as repo_release
from autograder.base import closed
from autograder.base.course import SUBMITTED, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.batch import receipts, versions
from autograder.batch.options import BatchOptions
from autograder.batch.root_lock import hold
from autograder.grading.submission import content_hash
from autograder.integrations.cohorts import announce, record
from autograder.integrations.cohorts import archives as lms_archives
from autograder.integrations.cohorts import inbound as inbound_folders
from autograder.integrations.cohorts.config import Cohort
from autograder.publish.export import ExportError, ExportFiles, export_root
from autograder.publish.views import publish
from autograder.results import journal
from autograder.spec import SPEC_FILE
from autograder.views import formgrader
from autograder.views.gradebook import _quiet_sqlalchemy, create_if_new
from autograder.views.nbgrader_feedback import write_feedback
from autograder.views.nbgrader_package import light_import

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.batch.engine import BatchSummary

NBGRADER_CONFIG = '''\
# Written by `python -m autograder cohort release`; edit cohorts.toml instead.
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", ".*"]
{exchange}c.ZipCollectApp.collector_plugin = "nbgrader.plugins.FileNameCollectorPlugin"
c.FileNameCollectorPlugin.named_regexp = {regexp!r}
c.FileNameCollectorPlugin.valid_ext = [".ipynb", ".json"]
'''


class WorkflowError(RuntimeError):
    """A step cannot run (it says why and what to do first), or an nbgrader step failed (the
    message carries the end of its log)."""


class NothingToCollect(WorkflowError):
    """``collect`` found no submission anywhere: not a mistake, but nothing to grade either."""


def command(step: str, cohort: Cohort) -> str:
    return f"`python -m autograder cohort {step} {cohort.name}`"


def require_released(cohort: Cohort) -> None:
    """``WorkflowError`` unless ``release`` built the cohort's course root: its
    nbgrader_config.py (course id, exchange) and its generated release."""
    if not cohort.root.is_dir():
        where = f"no course root at {cohort.root}"
    elif not (cohort.root / "nbgrader_config.py").is_file():
        where = f"no nbgrader_config.py in {cohort.root}"
    elif not Course(cohort.root, cohort.assignment).release_dir.is_dir():
        where = f"no release/{cohort.assignment} in {cohort.root}"
    else:
        return
    raise WorkflowError(f"cohort {cohort.name} was never released: run "
                        f"{command('release', cohort)} first ({where})")


def require_graded(cohort: Cohort) -> Course:
    """The cohort's course, once ``grade`` has run in it (its grades.csv exists)."""
    require_released(cohort)
    course = Course(cohort.root, cohort.assignment)
    if not course.grades_csv().is_file():
        raise WorkflowError(f"nothing graded yet for cohort {cohort.name}: run "
                            f"{command('grade', cohort)} first (no {course.grades_csv()})")
    return course


def _make_dir(path: Path, what: str) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WorkflowError(f"cannot create the {what} {path}: {error.strerror or error}; "
                            f"create it, or change `courses_root` / `exchange` in cohorts.toml"
                            ) from None


def nbgrader(cohort: Cohort, *args: str) -> str:
    """Run ``nbgrader ARGS`` in the cohort's root; returns its log, raises on failure."""
    done = subprocess.run(
        nbgrader_command(*args, "--log-level=INFO"),
        cwd=cohort.root, env=repo_release.nbgrader_env(), capture_output=True, text=True,
        check=False,
    )
    log = done.stdout + done.stderr
    if done.returncode != 0:
        raise WorkflowError(f"nbgrader {args[0]} failed for {cohort.name}:\n{log[-3000:]}")
    return log


def require_source(assignment: Assignment) -> None:
    """``WorkflowError`` (one line) unless the bundle's source notebook is there: nbgrader
    generates the cohort's release from it."""
    if not assignment.source_notebook.is_file():
        raise WorkflowError(
            f"assignment {assignment.name} has no source notebook {assignment.source_notebook}: "
            "a cohort's release is generated from it; put it in the bundle's source folder, or "
            f"name that folder with `source = \"...\"` in {assignment.root / SPEC_FILE}")


def prepare_root(cohort: Cohort) -> None:
    """The cohort's course root: config, and source/ = the bundle's source folder, plus the
    file that names the cohort when the assignment's notebook reads one (its spec's
    ``cohort_file``), both stating the due date and the late policy (``announce``)."""
    assignment = cohort.bundle()
    require_source(assignment)
    _make_root(cohort)
    if cohort.exchange is not None:
        _make_dir(cohort.exchange, "exchange")
    exchange = (f"c.Exchange.root = {str(cohort.exchange)!r}\n" if cohort.exchange is not None
                else "# No exchange: an LMS-only cohort (exchange = \"\" in cohorts.toml).\n")
    (cohort.root / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
        root=str(cohort.root), course_id=cohort.course_id, exchange=exchange,
        regexp=cohort.lms_filename_regexp,
    ))
    # Formgrader's Autograde button refuses (it would run student code outside the sandbox):
    # written again with the config, never a window without it.
    try:
        formgrader.install(cohort.root, cohort.assignment)
    except formgrader.FormgraderConfigError as error:
        raise WorkflowError(str(error)) from None
    source = Course(cohort.root, cohort.assignment).source_dir
    shutil.rmtree(source, ignore_errors=True)
    # An evidence file left by an instructor's test run must not be released.
    left_by_a_run = [assignment.evidence_file] if assignment.evidence_file else []
    shutil.copytree(assignment.source_dir, source,
                    ignore=shutil.ignore_patterns(*left_by_a_run, ".*"))
    if assignment.cohort_file:  # the cohort's name, and its due date and late policy
        (source / assignment.cohort_file).write_text(
            json.dumps(announce.cohort_file(cohort), indent=1, ensure_ascii=False) + "\n",
            encoding="utf-8")
    # The due date at the top of the notebook the cohort is given (nbgrader copies the cell).
    announce.add_due_cell(source / assignment.notebook, cohort)


def _make_root(cohort: Cohort) -> None:
    """The cohort's course root, created closed to other users (``autograder.base.closed``):
    it will hold the reference, every submission and every grade."""
    try:
        closed.make_root(cohort.root, cohort.team_group)
    except (OSError, closed.TeamGroupError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise WorkflowError(f"cannot create the course root {cohort.root}: {reason}; "
                            "create it, or change `courses_root` in cohorts.toml") from None


def release(cohort: Cohort) -> list[str]:
    """Regenerate the bundle's release if stale (where its spec keeps it: beside a bundle
    kept anywhere), then generate the cohort's copy (with the file that names its cohort)
    in the cohort's root and release it to the exchange with the due date."""
    _make_root(cohort)  # a wrong path fails now, not after nbgrader ran
    if cohort.exchange is not None:
        _make_dir(cohort.exchange, "exchange")
    # One change of the root (all or nothing): what nbgrader's commands write in it is kept
    # first. The exchange is not the root's: releasing again replaces what it holds.
    course = Course(cohort.root, cohort.assignment)
    with hold(cohort.root):
        journal.before_tree(cohort.root / "source")
        journal.before_tree(course.release_dir.parent)
        journal.before_database(course.gradebook_db())
        journal.before_write(cohort.root / "nbgrader_config.py")
        return _release(cohort)


def _release(cohort: Cohort) -> list[str]:
    assignment = cohort.bundle()
    if graded_without_a_release(Course(cohort.root, cohort.assignment)):
        raise WorkflowError(
            f"course root {cohort.root} already holds {cohort.assignment} graded with "
            "`autograde --root` (no release was generated there): nbgrader cannot generate the "
            "assignment in it now (its grades would lose their cells); give cohort "
            f"{cohort.name} a course root of its own (courses_root in cohorts.toml), or keep "
            "grading that root with `autograde --root` and `export --root`")
    require_source(assignment)
    steps = []
    try:
        if repo_release.check(assignment):
            changed = repo_release.regenerate(assignment)
            steps.append(f"the release {assignment.release_dir} was stale: regenerated from "
                         f"{assignment.source_dir} (" + "; ".join(changed) + ")")
    except repo_release.ReleaseError as error:
        raise WorkflowError(str(error)) from None
    prepare_root(cohort)
    steps += remember_settings(cohort)
    nbgrader(cohort, "generate_assignment", cohort.assignment, "--force")
    if cohort.due is not None:
        set_due_date(cohort)
    problems = repo_release.leaks(Course(cohort.root, cohort.assignment).release_dir, assignment)
    if problems:
        raise WorkflowError("the cohort's release leaks trusted material: " + "; ".join(problems))
    if cohort.exchange is None:  # LMS-only: nothing to release into
        released = Course(cohort.root, cohort.assignment).release_dir
        return [*steps, f"generated {released} (no exchange: exchange = \"\" in cohorts.toml); "
                "give the students its notebook through the LMS, and collect their downloads "
                f"with `{command('collect', cohort)} --zip FILE`"]
    nbgrader(cohort, "release_assignment", cohort.assignment, "--force")
    steps.append(f"released {cohort.assignment} to course {cohort.course_id} in {cohort.exchange}"
                 + (f", due {cohort.due_text()}" if cohort.due else ""))
    steps.append(f"students fetch and submit with `--course={cohort.course_id}` and "
                 f"c.Exchange.root = {str(cohort.exchange)!r} in their nbgrader_config.py")
    return steps


def graded_without_a_release(course: Course) -> bool:
    """Whether the root's gradebook holds submissions of the assignment but none of the
    notebook's source cells that nbgrader's generate_assignment records: a root graded with
    `autograde --root` alone, where generate_assignment would refuse in dozens of lines
    ("Cannot add or remove cells ... because there are submissions")."""
    # sqlite3 (1.3 ms): not at a command's start
    import sqlite3

    path = course.gradebook_db()
    if not path.is_file():
        return False
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
            submissions, cells = db.execute(
                "SELECT (SELECT COUNT(*) FROM submitted_assignment s JOIN assignment a"
                "        ON s.assignment_id = a.id WHERE a.name = ?),"
                "       (SELECT COUNT(*) FROM source_cell c JOIN notebook n"
                "        ON c.notebook_id = n.id JOIN assignment a ON n.assignment_id = a.id"
                "        WHERE a.name = ?)", (course.assignment, course.assignment)).fetchone()
    except sqlite3.Error:  # not a gradebook we can read: nbgrader's own error will say
        return False
    return submissions > 0 and cells == 0


def set_due_date(cohort: Cohort) -> None:
    light_import()
    # nbgrader.api (200 ms, without nbgrader's server extensions): only for this step
    from nbgrader.api import Gradebook

    _quiet_sqlalchemy()
    course = Course(cohort.root, cohort.assignment)
    db_url = course.db_url
    journal.before_database(course.gradebook_db())  # a change of the root: kept first
    create_if_new(db_url)  # no `alembic` subprocess, whatever PATH the TA's shell has
    with Gradebook(db_url, cohort.course_id) as gradebook:
        gradebook.update_or_create_assignment(cohort.assignment, duedate=cohort.due)


def _submissions(course: Course) -> dict[str, str]:
    """Every collected submission's content hash, by student."""
    return {student: content_hash(course.submitted(student)) for student in course.students()}


def _check_archives(archives: list[Path], limits: lms_archives.ArchiveLimits) -> None:
    for archive in archives:
        if not Path(archive).is_file():
            raise WorkflowError(f"--zip {archive}: no such file; pass the zip your LMS "
                                "downloaded (files named <student id>__<file name>)")
        if not zipfile.is_zipfile(archive):
            raise WorkflowError(f"--zip {archive} is not a zip file; pass the zip your LMS "
                                "downloaded (files named <student id>__<file name>)")
        try:  # headers only, before anything is collected or written
            lms_archives.check(Path(archive), limits)
        except lms_archives.ArchiveError as error:
            raise WorkflowError(str(error)) from None


def _unpack_downloads(cohort: Cohort, archives: list[Path]) -> list[str]:
    """Unpack the downloads ourselves (within the cohort's limits) into the folder
    ``zip_collect`` reads, which then only copies: nbgrader's own extraction unpacks
    archives inside archives without limit. Returns a line per download that held archives
    (left out, never unpacked), and the files zip_collect will skip, with why."""
    archive_dir = cohort.root / "downloaded" / cohort.assignment / "archive"
    try:
        unpacked = lms_archives.unpack(archives, archive_dir, cohort.archive_limits,
                                       cohort.moodle_download, cohort.lms_filename_regexp)
    except lms_archives.ArchiveError as error:
        raise WorkflowError(str(error)) from None
    return [f"left out of {download.archive.name}, not unpacked (an archive inside an LMS "
            f"download never is; ask its student for the files themselves): "
            + ", ".join(download.left_out) for download in unpacked if download.left_out
            ] + lms_archives.skipped_lines(unpacked, cohort.lms_filename_regexp)


def _zip_collect(cohort: Cohort, course: Course,
                 pending: dict[str, receipts.Receipt] | None = None) -> None:
    """``nbgrader zip_collect --force`` of the downloads just unpacked: each student's
    submission it replaces is kept as a version first, with its receipt (``pending``: those
    this collect made from the exchange a moment ago, not saved yet). When it fails, every student's
    folder in submitted/ is put back as it was (from those versions) and the error is one
    line: nbgrader's own last error, not its log."""
    previous = _submissions(course)
    versions.keep_all(course, pending=pending)
    try:
        nbgrader(cohort, "zip_collect", cohort.assignment, "--force",
                 *lms_archives.NBGRADER_NO_EXTRACTION)
    except WorkflowError as error:
        _put_back(course, previous)
        raise WorkflowError(
            f"nbgrader zip_collect failed for {cohort.name}: {_last_error(str(error))}; "
            f"nothing of the download(s) was collected ({cohort.root / SUBMITTED} is as it "
            "was); fix that and collect again") from None
    except BaseException:
        _put_back(course, previous)
        raise


def _last_error(log: str) -> str:
    """The line of an nbgrader log that says why it failed (its last ERROR line)."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if "| ERROR]" in line or "| CRITICAL]" in line]
    last = (errors or lines or ["no log"])[-1]
    return last.split("] ", 1)[-1][:300] if last.startswith("[") else last[:300]


def _put_back(course: Course, previous: dict[str, str]) -> None:
    """Each student's submitted/ folder as it was (``previous``: hashes by student), from the
    versions kept just before; a folder that was not there is removed."""
    for student in set(course.students()) | set(previous):
        folder = course.submitted(student)
        digest = previous.get(student)
        if digest is not None and folder.is_dir() and content_hash(folder) == digest:
            continue
        kept = versions.find(course, student, digest) if digest else None
        if digest is not None and (kept is None or not kept.files.is_dir()):
            continue  # nothing to put back from: left as nbgrader left it
        shutil.rmtree(folder, ignore_errors=True)
        try:
            if kept is not None:
                shutil.copytree(kept.files, folder, symlinks=True)
            else:
                _remove_if_empty(folder.parent)
        except OSError:
            continue  # the version stays in versions/, where collect found it


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _discard_downloads(cohort: Cohort) -> None:
    """A download that failed leaves nothing behind in downloaded/ (its unpacked files,
    nbgrader's extracted copy, and the folders once empty)."""
    downloaded = cohort.root / "downloaded"
    for step in ("archive", "extracted"):
        shutil.rmtree(downloaded / cohort.assignment / step, ignore_errors=True)
    _remove_if_empty(downloaded / cohort.assignment)
    _remove_if_empty(downloaded)


def _inbound(cohort: Cohort) -> Path:
    """The course's inbound folder in the exchange; ``WorkflowError`` if the exchange or the
    course in it is missing (cohorts.toml then names another exchange than the students')."""
    fix = (f"set `exchange` in cohorts.toml to the Exchange.root in the students' "
           f"nbgrader_config.py, or run {command('release', cohort)} to create it")
    if not cohort.exchange.is_dir():
        raise WorkflowError(f"the exchange {cohort.exchange} does not exist: {fix}")
    if not (cohort.exchange / cohort.course_id).is_dir():
        raise WorkflowError(f"no course {cohort.course_id} in the exchange {cohort.exchange}: "
                            f"{fix}")
    return cohort.exchange / cohort.course_id / "inbound"


def _known_receipts(course: Course) -> dict:
    """The arrival times recorded so far (``autograder.integrations.cohorts.arrival``)."""
    try:
        return receipts.load(course.root, course.assignment)
    except receipts.ReceiptsError as error:
        raise WorkflowError(f"{error}: delete it and collect again (the exchange's times are "
                            "read again; give LMS downloads with --zip again)") from None


def _collect_exchange(cohort: Cohort, inbound: Path) -> tuple[list[str], set[str], list[str]]:
    """``nbgrader collect --update`` of the exchange's folders that pass
    ``inbound_folders.vet``, copied first into a private exchange in the course root that
    nbgrader reads instead of the students' ``inbound/``. Returns the lines to show (a line
    per folder refused, first), the names of the folders accepted, and the refusals."""
    if not inbound.is_dir() or not any(inbound.iterdir()):
        return [f"nothing in the exchange ({inbound} is empty)"], set(), []
    with inbound_folders.staging_exchange(cohort.root, cohort.course_id) as staging:
        try:
            vetted = inbound_folders.vet(inbound, cohort.assignment,
                                         staging / cohort.course_id / "inbound",
                                         cohort.unix_users)
        except OSError as error:
            raise WorkflowError(f"cannot read the exchange's {inbound}: "
                                f"{error.strerror or error}; collect as the user who owns "
                                "it (the instructor)") from None
        lines = list(vetted.refused)
        if vetted.accepted:
            nbgrader(cohort, "collect", cohort.assignment, "--update",
                     f"--Exchange.root={staging}")
            lines.append(f"collected from the exchange ({inbound}): {len(vetted.accepted)} "
                         "folder(s) vetted"
                         + (f", {len(vetted.refused)} refused" if vetted.refused else ""))
        else:
            lines.append(f"nothing collected from the exchange ({inbound}): no folder of "
                         f"{cohort.assignment} there"
                         + (f" passed vetting ({len(vetted.refused)} refused)"
                            if vetted.refused else ""))
    return lines, set(vetted.accepted), vetted.refused


def collect(cohort: Cohort, archives: list[Path] | None = None,
            received: datetime | None = None) -> list[str]:
    """``_collect`` as one change of the root (all or nothing: ``autograder.results.journal``),
    with submitted/ and downloaded/ kept first: nbgrader's own commands write them."""
    require_released(cohort)
    archives = list(archives or [])
    if received is not None and not archives:
        raise WorkflowError("--received is when the LMS received a download: give it "
                            "together with --zip FILE")
    if cohort.exchange is None and not archives:
        raise WorkflowError(f"cohort {cohort.name} has no exchange (exchange = \"\" in "
                            "cohorts.toml): collect its LMS download with --zip FILE")
    _check_archives(archives, cohort.archive_limits)
    with hold(cohort.root):  # refused above, before the root is held: nothing touched
        journal.before_tree(cohort.root / SUBMITTED)
        journal.before_tree(cohort.root / "downloaded")
        return _collect(cohort, archives, received)


def _collect(cohort: Cohort, archives: list[Path] | None = None,
             received: datetime | None = None) -> list[str]:
    """Newest submission of each student from the exchange (``nbgrader collect
    --update``), plus LMS downloads given as zip files (``nbgrader zip_collect``); then when
    each arrived, by records the student cannot write (``arrival``; ``received``: when the
    LMS received the downloads, as the TA gives it).

    Refuses (``WorkflowError``) a cohort never released, a missing exchange, a zip that
    is not one, one past the cohort's archive limits and one whose files' owners are in
    doubt (``archives``), before anything is collected; raises ``NothingToCollect`` when no
    submission exists anywhere. A download of a student collected before replaces their
    submission, which is kept as a version first; a download that fails leaves nothing in
    downloaded/ and submitted/ as it was. nbgrader never reads the exchange's inbound/ itself:
    each folder there is vetted first (``inbound_folders``), one refused is a line naming its
    student and why, and what is collected is closed to other users (``closed.close_tree``)."""
    # cohorts.arrival (1.7 ms): not at a command's start
    from autograder.integrations.cohorts import arrival

    archives = list(archives or [])
    inbound = _inbound(cohort) if cohort.exchange is not None else None
    course = Course(cohort.root, cohort.assignment)
    known = _known_receipts(course)
    # Unpacked (and refused) before anything is collected; only this call's downloads are
    # in downloaded/ then, and a failure from here on removes them again.
    left_out = _unpack_downloads(cohort, archives) if archives else []
    try:
        before = _submissions(course)
        versions.keep_all(course)  # before nbgrader replaces any of them (never deleted)
        steps, accepted, refused = ([], set(), []) if inbound is None else _collect_exchange(
            cohort, inbound)
        # before zip_collect writes; only from folders vetted and accepted
        found = {} if inbound is None else arrival.from_exchange(course, inbound, known,
                                                                  accepted=accepted)
        if archives:
            _zip_collect(cohort, course, found)  # an exchange version keeps its receipt
            steps.append(f"collected {len(archives)} LMS download(s)")
            steps += left_out
            found.update(arrival.from_downloads(course, archives, cohort.lms_filename_regexp,
                                                received, cohort.moodle_download))
    except BaseException:
        if archives:
            _discard_downloads(cohort)
        raise
    try:  # nbgrader copies modes (the exchange's 0777): closed to all but the team
        closed.close_tree(cohort.root / SUBMITTED, cohort.team_group)
    except (OSError, closed.TeamGroupError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise WorkflowError(f"cannot close {cohort.root / SUBMITTED} to other users: {reason}; "
                            f"close it with `chmod -R go-rwx {cohort.root / SUBMITTED}`"
                            ) from None
    after = _submissions(course)
    if not after:
        where = (f"no submissions in {inbound or 'an exchange (the cohort has none)'}"
                 + (f" but {len(refused)} refused (" + "; ".join(refused) + ")"
                    if refused else "")
                 + (" and no file in the zip matched lms_filename_regexp "
                    "(<student id>__<file name>)" if archives else " and no --zip given"))
        if archives and left_out:  # what was skipped, and why, is what the TA needs now
            where += " (" + "; ".join(left_out) + ")"
        raise NothingToCollect(
            f"nothing to collect for cohort {cohort.name}: {where}; students submit with "
            f"`nbgrader submit {cohort.assignment} --course={cohort.course_id}`, "
            "LMS downloads come in with --zip FILE")
    new = sum(student not in before for student in after)
    updated = sum(student in before and before[student] != digest
                  for student, digest in after.items())
    steps.append(f"{len(after)} submission(s) in {cohort.root / SUBMITTED}: {new} new, "
                 f"{updated} updated, {len(after) - new - updated} unchanged")
    steps += arrival.record(course, known, found)
    kept = versions.keep_all(course)  # the new ones, with the receipts just recorded
    if kept:
        steps.append(f"{kept} new version(s) kept in {cohort.root / versions.VERSIONS} (every "
                     "collected version is; the course's version_rule says which counts)")
    return steps


def remember_settings(cohort: Cohort) -> list[str]:
    """Write the cohort's name and due date (cohorts.toml's) into its root's course.json, so
    a plain ``autograde`` there (the TA's command, ``--student``) judges lateness as
    ``cohort grade`` does, and where its bundle lives when it is not the package's, so
    ``autograde``, ``review`` or ``export --root`` there find it; one line per change.
    ``WorkflowError`` for a damaged file. The root is marked as the cohort's: its cohorts.toml
    is its settings of record (``autograder.integrations.cohorts.record``)."""
    try:
        lines = record.remember(cohort)[1]  # as `autograde` there does (its settings of record)
    except record.RecordError as error:
        raise WorkflowError(str(error)) from None
    where = remembered.remember(cohort.root, cohort.bundle())
    return lines + ([where] if where else [])


def check_extension_ids(cohort: Cohort, course: Course) -> None:
    """``WorkflowError`` (one line, naming the close ids) for an extension in cohorts.toml
    given to a student with no collected submission (``record.extension_ids_problem``)."""
    problem = record.extension_ids_problem(cohort, course.students())
    if problem:
        raise WorkflowError(problem)


def grade(cohort: Cohort, options: BatchOptions | None = None,
          say: Callable[[str], None] = lambda line: None) -> BatchSummary:
    """``autograde`` for the cohort: its root, its cohort name (evidence inputs), its due date
    (also remembered in the root's course.json; ``say`` gets a line per change, before
    grading starts). ``RootBusy`` when another run grades in the root."""
    require_released(cohort)
    with hold(cohort.root):
        return _grade(cohort, options, say)


def _grade(cohort: Cohort, options: BatchOptions | None, say: Callable[[str], None]
           ) -> BatchSummary:
    assignment = cohort.bundle()
    course = Course(cohort.root, cohort.assignment)
    released = course.release_dir
    missing = repo_release.missing_parts(released, assignment)
    if missing:
        raise WorkflowError(repo_release.stale_release_message(released, missing))
    if not course.students():
        raise WorkflowError(f"no submissions in {cohort.root / SUBMITTED} for cohort "
                            f"{cohort.name}: run {command('collect', cohort)} first")
    check_extension_ids(cohort, course)
    for line in remember_settings(cohort):
        say(line)
    options = replace(options or BatchOptions(), cohort=cohort.name, due=cohort.due,
                      late_policy=cohort.late_policy, extensions=dict(cohort.extensions),
                      version_rule=cohort.version_rule)
    # the grader (pytest, the checks' runner, the sandbox's client: 0.35 s): only to grade,
    # not for the cohort's other commands
    from autograder.batch.engine import grade_course

    summary = grade_course(course, options=options, assignment=assignment)
    published = publish(course, assignment, course.students())  # as autograde ends
    if published.line():
        say(published.line())
    summary.unpublished = list(published.stale)
    return summary


def feedback(cohort: Cohort) -> list[Path]:
    """Each graded student's report as ``nbgrader release_feedback`` takes it; see
    ``autograder.views.nbgrader_feedback``. Holds the root (never beside a grading run)."""
    course = require_graded(cohort)
    with hold(cohort.root):
        return write_feedback(course, cohort.bundle())


def export(cohort: Cohort) -> ExportFiles:
    """nbgrader's own export from the gradebook, next to our grades.csv, a summary, the Canvas
    and Moodle grade files (from the same numbers as grades.csv, with cohorts.toml's columns)
    and the feedback pages: ``autograder.publish.export`` for the cohort's root."""
    course = require_graded(cohort)
    try:
        with hold(cohort.root):  # never beside a grading run: one set of totals in the files
            return export_root(course, cohort.bundle(), cohort.canvas, cohort.moodle,
                               cohort.moodle_download.roster)
    except ExportError as error:
        raise WorkflowError(str(error)) from None
