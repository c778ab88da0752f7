"""A cohort root's settings of record: its cohorts.toml (issue 51, item 1).

A root has one place where its due date, late policy, extensions and version rule are
decided. For a cohort's root (``courses/<cohort>/``, which `cohort release` or `cohort grade`
marked with the file in its course.json) that is the cohort in cohorts.toml; for a plain root
it is course.json itself. Both `cohort grade` and `autograde` grade a cohort root with
cohorts.toml's settings, so neither takes back what the other set: ``autograde --due``,
``--no-due``, ``--late-policy``, ``--extension`` or ``--version-rule`` that disagrees with the
file is refused in one line naming both values and the file to edit (the same value is
accepted: it changes nothing). course.json keeps a copy, which every command reads.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from autograder.base.course import SUBMITTED
from autograder.integrations.cohorts.config import Cohort, CohortConfigError, get_cohort
from autograder.results import root_settings
from autograder.results.late_policy import LatePolicy
from autograder.results.root_settings import RootSettings, RootSettingsError, due_text


class RecordError(ValueError):
    """The settings of record cannot be read, or an option disagrees with them: one line."""


@dataclass(frozen=True)
class Given:
    """The settings one ``autograde`` command line gives (None: not given)."""

    due: datetime | None = None
    no_due: bool = False
    late_policy: LatePolicy | None = None
    extensions: dict[str, datetime | None] = field(default_factory=dict)
    version_rule: str | None = None
    cohort: str | None = None


def cohort_of(root: Path, assignment: str) -> Cohort | None:
    """The cohort whose cohorts.toml is ``root``'s settings of record for ``assignment``
    (None: a plain root); ``RecordError`` when that file no longer declares it for this root."""
    try:
        config = root_settings.settings_of_record(root, assignment)
        name = root_settings.load(root, assignment).cohort if config else None
    except RootSettingsError as error:
        raise RecordError(str(error)) from None
    if config is None:
        return None
    fix = (f"restore {config}, or remove \"{root_settings.RECORD}\" from {root_settings.path(root)}"
           " to make course.json this root's record (nothing was changed)")
    try:
        cohort = get_cohort(name or "", config, assignment=assignment)
    except CohortConfigError as error:
        raise RecordError(f"{error}; it holds the settings of record of {root}: {fix}") from None
    if cohort.root != Path(root).resolve():
        raise RecordError(f"cohort {cohort.name} of {config} (the settings of record of {root}) "
                          f"has its root at {cohort.root} now: {fix}")
    return cohort


def extension_ids_problem(cohort: Cohort, students: list[str]) -> str | None:
    """One line (naming the close ids) for an extension in cohorts.toml given to a student
    with no collected submission among ``students``, else None: a mistyped id would be
    remembered and leave the real student penalised, whichever command grades the root
    (``autograde --extension`` refuses the same)."""
    for student in sorted(cohort.extensions):
        if student in students:
            continue
        close = difflib.get_close_matches(student, students, n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}?" if close else "check the id"
        return (f"the extension of {student} in [cohorts.{cohort.name}.extensions] of "
                f"{cohort.config or 'cohorts.toml'} is for no collected submission "
                f"({cohort.root / SUBMITTED} has none from {student}: {hint}); correct the id, "
                "or add the line once they have submitted (nothing was graded or changed)")
    return None


def refusal(cohort: Cohort, given: Given) -> str | None:
    """One line when ``given`` disagrees with ``cohort``'s settings in its cohorts.toml (None
    when it does not): both values, where each lives, and how to resolve it."""
    found = _disagreement(cohort, given)
    if found is None:
        return None
    option, ours, theirs = found
    return (f"autograde {option} {ours} disagrees with {cohort.config}, which gives cohort "
            f"{cohort.name} {theirs}: that file holds the settings of record of {cohort.root} "
            f"(`cohort grade` and `autograde` there both follow it); edit it and run `cohort "
            f"grade {cohort.name}`, or leave out {option} (nothing was changed)")


def _disagreement(cohort: Cohort, given: Given) -> tuple[str, str, str] | None:
    """(the option, its value, cohorts.toml's value) of the first option of ``given`` that
    disagrees with ``cohort``, in words; None when none does."""
    if given.cohort is not None and given.cohort != cohort.name:
        return "--cohort", repr(given.cohort), f"its root {cohort.root}"
    if given.no_due and cohort.due is not None:
        return "--no-due", "(no due date)", f"the due date {due_text(cohort.due)}"
    if given.due is not None and given.due != cohort.due:
        theirs = f"the due date {due_text(cohort.due)}" if cohort.due else "no due date"
        return "--due", f"'{due_text(given.due)}'", theirs
    if given.late_policy is not None and given.late_policy != cohort.late_policy:
        return ("--late-policy", f"'{given.late_policy.describe()}'",
                f"the late policy '{cohort.late_policy.describe()}'")
    if given.version_rule is not None and given.version_rule != cohort.version_rule:
        return "--version-rule", given.version_rule, f"the version rule {cohort.version_rule}"
    for student, when in sorted(given.extensions.items()):
        kept = cohort.extensions.get(student)
        if due_text(when) != due_text(kept):
            theirs = (f"{student} the extension {due_text(kept)}" if kept else
                      f"{student} no extension")
            return "--extension", f"{student}='{due_text(when) or 'none'}'", theirs
    return None


def remember(cohort: Cohort, given: Given | None = None, course_name: str | None = None
             ) -> tuple[RootSettings, list[str]]:
    """The settings to grade ``cohort``'s root with: cohorts.toml's, written into its
    course.json with the file marked as the root's record (by `cohort release`, `cohort grade`
    and `autograde` there alike), and a line per change; ``RecordError`` when ``given`` (an
    ``autograde`` command line) disagrees with them, or course.json cannot be read."""
    refused = refusal(cohort, given or Given())
    if refused:
        raise RecordError(refused)
    try:
        settings = root_settings.remember(
            cohort.root, cohort.assignment, cohort=cohort.name, due=cohort.due, set_due=True,
            set_cohort=True, late_policy=cohort.late_policy, extensions=dict(cohort.extensions),
            replace_extensions=True, version_rule=cohort.version_rule, course=course_name)
        if cohort.config is not None:
            root_settings.remember_record(cohort.root, cohort.assignment, cohort.config)
    except RootSettingsError as error:
        raise RecordError(str(error)) from None
    return settings
