"""What a grading run graded, kept apart from the root's record so an interrupted run resumes.

A grading run changes its root all or nothing (``autograder.results.journal``): Ctrl-C, a
kill or an error rolls every results.json, feedback page and the gradebook back to before
the run. The work is not lost with them: as each submission is saved, its results.json is
also linked here (``.autograder-resume/<assignment>/<student>.json``: a hard link, no copy),
outside the journal. The next run takes a result from here when nothing it was graded from
has changed (the same checks as a results.json: ``engine._still_current``) and writes it
into the record with everything else, so only what was not graded yet is graded.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.base.course import Course
from autograder.results.result import SubmissionResult, load

CACHE = ".autograder-resume"


def path(course: Course, student: str) -> Path:
    return course.root / CACHE / course.assignment / f"{student}.json"


def keep(course: Course, student: str, results_json: Path) -> None:
    """Link the results.json just written for ``student`` into the cache (replacing what it
    held). A cache that cannot be written costs only the resumption, never the grade."""
    target = path(course, student)
    temporary = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary.unlink(missing_ok=True)
        os.link(results_json, temporary)
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)


def load_kept(course: Course, student: str) -> SubmissionResult | None:
    """What the cache holds for ``student`` (None: nothing, or unreadable)."""
    return load(path(course, student))
