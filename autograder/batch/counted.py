"""The student's result of record under the course's ``version_rule``: which version counts.

After a batch has graded what the rule needs (``autograder.batch.version_rule.plan``), the
counted version's result becomes the student's ``autograded/<student>/<assignment>/
results.json`` (and feedback.html, formgrader's notebook), as any result does, so every
output rendered from it (grades.csv, gradebook, LMS files, report) follows. It says which
version counted and why (its ``version``); each graded version's own result stays in its
folder under ``versions/``.
"""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import RESULTS_JSON, Course
from autograder.batch import version_rule
from autograder.batch.version_rule import Plan
from autograder.results.late_policy import LatePolicy
from autograder.results.result import STATUS_ERROR, SubmissionResult, load
from autograder.views.student_files import write_student, write_version

if TYPE_CHECKING:
    from autograder.assignments import Assignment


def compose(course: Course, assignment: Assignment, chosen: Plan,
            graded: SubmissionResult | None, kept: dict[Path, SubmissionResult],
            policy: LatePolicy, due: datetime | None) -> SubmissionResult | None:
    """The student's result of record: ``graded`` (their submission in ``submitted/``) when
    the newest counts, else the counted one of the kept versions' results ``kept`` (by
    folder); with ``version`` saying which and why, written to the student's outputs when it
    changed. None when nothing was graded for the student."""
    if chosen.on_time is None or chosen.newest is None:
        return _newest_counts(course, assignment, chosen, graded, policy, due)
    newest, on_time = kept.get(chosen.newest.folder), kept.get(chosen.on_time.folder)
    if newest is None or on_time is None:
        return graded
    failed = next((r for r in (on_time, newest) if r.status == STATUS_ERROR), None)
    if failed is not None:  # a grader error is a row of its own, retried on the next run
        return failed
    result, why = version_rule.choose(chosen.rule, newest, on_time, policy, due)
    which = chosen.newest if result.submission_hash == newest.submission_hash else chosen.on_time
    scores = {r.submission_hash: version_rule.after_penalty(r, policy, due).score
              for r in (newest, on_time)}
    result.version = version_rule.describe(chosen, which.hash, why, policy, due, scores)
    _write(course, assignment, result, which.files)
    return result


def _newest_counts(course: Course, assignment: Assignment, chosen: Plan,
                   graded: SubmissionResult | None, policy: LatePolicy,
                   due: datetime | None) -> SubmissionResult | None:
    """``graded`` as the counted version: kept beside its version too, and saying so when
    there is anything to say (a rule other than newest, or more than one version)."""
    if graded is None or chosen.newest is None:
        return graded
    if graded.status != STATUS_ERROR and graded.submission_hash == chosen.newest.hash:
        copy = chosen.newest.results_json
        if not _newer(copy, course.autograded(graded.student) / RESULTS_JSON):
            saved = load(copy)
            if saved is None or _graded_as(saved) != _graded_as(graded):
                write_version(dataclasses.replace(graded, version={}), copy)
            else:
                os.utime(copy)  # checked current: not read again until results.json changes
    if chosen.rule == version_rule.NEWEST and len(chosen.kept) <= 1 and not graded.version:
        return graded  # one version, today's rule: results.json as it always was
    score = version_rule.after_penalty(graded, policy, due).score
    info = version_rule.describe(chosen, chosen.newest.hash, version_rule.WHY_NEWEST, policy,
                                 due, {chosen.newest.hash: score})
    if info != graded.version:
        graded.version = info
        if graded.status != STATUS_ERROR:
            _write(course, assignment, graded, None)
    return graded


def _newer(copy: Path, results: Path) -> bool:
    """Whether the kept version's copy was written (or checked) after the student's
    results.json last changed: it then holds what results.json was graded as, and reading it
    (about 1.6 ms, for every student of every batch) is skipped. Every grading writes
    results.json, so a regrade is never missed."""
    try:
        # Strictly: file times are as coarse as the kernel's clock tick, and a results.json
        # rewritten in the tick its copy was checked must be read again.
        return copy.stat().st_mtime_ns > results.stat().st_mtime_ns
    except OSError:
        return False


def _graded_as(result: SubmissionResult) -> tuple:
    """What makes a kept version's copy of a result current (not a decision or a penalty
    applied since, which would rewrite it on every run)."""
    return (result.submission_hash, result.grading_key, result.graded_on, result.due,
            result.cohort, result.lateness_key(), result.status)


def _write(course: Course, assignment: Assignment, result: SubmissionResult,
           folder: Path | None) -> None:
    """``result`` as the student's results.json, feedback.html and formgrader notebook
    (``folder``: the counted version's files; None: the submission in submitted/)."""
    # views.graded_notebook (3 ms): not at a command's start
    from autograder.views import graded_notebook

    notebook = graded_notebook.find_notebook(folder, assignment) if folder else None
    write_student(course, assignment, result, notebook=notebook, folder=folder)
