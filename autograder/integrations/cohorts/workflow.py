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
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring import release as repo_release
from autograder.batch.course import FEEDBACK_HTML, Course
from autograder.batch.engine import BatchOptions, BatchSummary, grade_course
from autograder.integrations.cohorts.config import Cohort
from autograder.spec import SPEC

COHORT_FILE = SPEC.cohort_file  # read by the notebook's evidence cell
NBGRADER_CONFIG = '''\
# Written by `python -m autograder cohort release`; edit cohorts.toml instead.
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", ".*"]
c.Exchange.root = {exchange!r}
c.ZipCollectApp.collector_plugin = "nbgrader.plugins.FileNameCollectorPlugin"
c.FileNameCollectorPlugin.named_regexp = {regexp!r}
c.FileNameCollectorPlugin.valid_ext = [".ipynb", ".json"]
'''


class WorkflowError(RuntimeError):
    """An nbgrader step failed; the message carries the end of its log."""


def nbgrader(cohort: Cohort, *args: str) -> str:
    """Run ``nbgrader ARGS`` in the cohort's root; returns its log, raises on failure."""
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, "--log-level=INFO"],
        cwd=cohort.root, env=repo_release.nbgrader_env(), capture_output=True, text=True,
        check=False,
    )
    log = done.stdout + done.stderr
    if done.returncode != 0:
        raise WorkflowError(f"nbgrader {args[0]} failed for {cohort.name}:\n{log[-3000:]}")
    return log


def prepare_root(cohort: Cohort) -> None:
    """The cohort's course root: config, and source/ = the repository's plus cohort.json."""
    cohort.root.mkdir(parents=True, exist_ok=True)
    cohort.exchange.mkdir(parents=True, exist_ok=True)
    (cohort.root / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
        root=str(cohort.root), course_id=cohort.course_id, exchange=str(cohort.exchange),
        regexp=cohort.lms_filename_regexp,
    ))
    source = cohort.root / "source" / cohort.assignment
    shutil.rmtree(source, ignore_errors=True)
    # An evidence file left by an instructor's test run must not be released.
    shutil.copytree(repo_release.SOURCE_DIR, source,
                    ignore=shutil.ignore_patterns(SPEC.evidence_file, ".*"))
    (source / COHORT_FILE).write_text(json.dumps({"cohort": cohort.name}) + "\n")


def release(cohort: Cohort) -> list[str]:
    """Regenerate the repository's release if stale, then generate the cohort's copy
    (with its cohort.json) and release it to the exchange with the due date."""
    steps = []
    if repo_release.check():
        steps.append("release/ was stale: regenerated from source/ (" +
                     "; ".join(repo_release.regenerate()) + ")")
    prepare_root(cohort)
    nbgrader(cohort, "generate_assignment", cohort.assignment, "--force")
    if cohort.due is not None:
        set_due_date(cohort)
    problems = repo_release.leaks(cohort.root / "release" / cohort.assignment)
    if problems:
        raise WorkflowError("the cohort's release leaks trusted material: " + "; ".join(problems))
    nbgrader(cohort, "release_assignment", cohort.assignment, "--force")
    steps.append(f"released {cohort.assignment} to course {cohort.course_id} in {cohort.exchange}"
                 + (f", due {cohort.due:%Y-%m-%d %H:%M} UTC" if cohort.due else ""))
    return steps


def set_due_date(cohort: Cohort) -> None:
    from nbgrader.api import Gradebook

    from autograder.results.gradebook import _quiet_sqlalchemy

    _quiet_sqlalchemy()
    with Gradebook(Course(cohort.root, cohort.assignment).db_url, cohort.course_id) as gradebook:
        gradebook.update_or_create_assignment(cohort.assignment, duedate=cohort.due)


def collect(cohort: Cohort, archives: list[Path] | None = None) -> list[str]:
    """Newest submission of each student from the exchange (``nbgrader collect
    --update``), plus LMS downloads given as zip files (``nbgrader zip_collect``)."""
    steps = []
    inbound = cohort.exchange / cohort.course_id / "inbound"
    if inbound.is_dir() and any(inbound.iterdir()):
        nbgrader(cohort, "collect", cohort.assignment, "--update")
        steps.append(f"collected from the exchange ({cohort.course_id})")
    if archives:
        archive_dir = cohort.root / "downloaded" / cohort.assignment / "archive"
        archive_dir.mkdir(parents=True, exist_ok=True)
        for archive in archives:
            shutil.copy(archive, archive_dir / Path(archive).name)
        nbgrader(cohort, "zip_collect", cohort.assignment, "--force")
        steps.append(f"collected {len(archives)} LMS download(s)")
    steps.append(f"{len(Course(cohort.root, cohort.assignment).students())} submission(s) in submitted/")
    return steps


def grade(cohort: Cohort, options: BatchOptions | None = None) -> BatchSummary:
    """``autograde`` for the cohort: its root, its cohort name (evidence inputs), its due date."""
    from dataclasses import replace

    options = replace(options or BatchOptions(), cohort=cohort.name, due=cohort.due)
    return grade_course(Course(cohort.root, cohort.assignment), options=options)


def feedback(cohort: Cohort) -> list[Path]:
    """Each graded student's report into ``feedback/<student>/<assignment>/`` (nbgrader's
    layout, which ``nbgrader release_feedback`` and LMS uploads use)."""
    course = Course(cohort.root, cohort.assignment)
    written = []
    for student in course.students():
        report = course.autograded(student) / FEEDBACK_HTML
        if report.exists():
            target = course.feedback(student) / f"{cohort.assignment}.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(report, target)
            written.append(target)
    return written


@dataclass
class ExportFiles:
    grades: Path
    nbgrader: Path
    summary: Path


def export(cohort: Cohort) -> ExportFiles:
    """nbgrader's own export from the gradebook, next to our grades.csv and a summary."""
    from autograder.integrations.cohorts.summary import write_summary

    course = Course(cohort.root, cohort.assignment)
    target = cohort.root / "nbgrader-export.csv"
    nbgrader(cohort, "export", "--to", str(target))
    return ExportFiles(course.grades_csv(), target, write_summary(course))


def ship_check(cohort: Cohort) -> list[str]:
    """What a student of this cohort receives (for the README and tests)."""
    released = cohort.exchange / cohort.course_id / "outbound" / cohort.assignment
    return sorted(p.name for p in released.iterdir()) if released.is_dir() else []
