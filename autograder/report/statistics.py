"""The report's figures from saved results: scores, item analysis, misconceptions, lists.

Item analysis follows PrairieLearn's question statistics: for each hidden check
the share of students who pass it and its *discrimination*, the correlation
between the check's score and the rest of the student's score (the total minus
that check's points). A good check is passed more often by students who do well
elsewhere; one that nobody fails teaches nothing about the cohort, one that
everybody fails may test something the notebook never asked for, and one that
discriminates negatively (strong students fail it, weak ones pass) is likely a
broken check. Only graded notebooks count (an ungradable one fails every check for
a reason that is not the check's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from autograder.base.course import parse_time
from autograder.grading.diagnoses import known
from autograder.results import note_codes
from autograder.results.message import has_code
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    SubmissionResult,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment

NOBODY_FAILS = "nobody fails"
EVERYBODY_FAILS = "everybody fails"
NEGATIVE = "negative discrimination"
MIN_STUDENTS_FOR_CORRELATION = 3
# A broken check correlates clearly negatively; a slightly negative r is noise in a small
# cohort (one strong student's slip), so it is shown but not flagged. The page states this
# threshold, and its highlighting and its count of flagged checks both use it.
NEGATIVE_BELOW = -0.2


# ----------------------------------------------------------------- scores


def counted(results: Sequence[SubmissionResult]) -> list[SubmissionResult]:
    """Results with a total of record (graded notebooks: ``has_total``); an ungradable one
    waits for a person, a grader error is regraded, and neither counts in a figure."""
    return [r for r in results if r.has_total]


def part_shares(results: Sequence[SubmissionResult], assignment: Assignment
                ) -> dict[str, list[float]]:
    """Per part (spec order), each counted student's points as a share of the part's."""
    shares: dict[str, list[float]] = {part: [] for part in assignment.part_points}
    for result in counted(results):
        for part in result.parts:
            if part.part in shares and part.max_points:
                shares[part.part].append(part.points / part.max_points)
    return shares


# ----------------------------------------------------------------- item analysis


@dataclass(frozen=True)
class Item:
    """One hidden check across the cohort."""

    part: str
    check: str
    points: float
    students: int
    passed: int
    discrimination: float | None  # None: undefined (fewer than 3 students, or no spread)
    flags: tuple[str, ...] = ()

    @property
    def pass_share(self) -> float:
        return self.passed / self.students if self.students else 0.0


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The correlation of two equally long series; None when either does not vary."""
    n = len(xs)
    if n < MIN_STUDENTS_FOR_CORRELATION or n != len(ys):
        return None
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    dx = [x - mean_x for x in xs]
    dy = [y - mean_y for y in ys]
    sxx, syy = sum(d * d for d in dx), sum(d * d for d in dy)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy)


def item_analysis(results: Sequence[SubmissionResult], assignment: Assignment) -> list[Item]:
    """Every hidden check of the function parts, in the order the grader lists them."""
    graded = [r for r in results if r.status == STATUS_GRADED]
    order: dict[tuple[str, str], float] = {}
    for result in graded:
        for test in result.tests:
            if test.part in assignment.function_parts:
                order.setdefault((test.part, test.name), test.max_score)
    part_rank = {part: i for i, part in enumerate(assignment.function_parts)}
    items = []
    for (part, check), points in sorted(order.items(), key=lambda kv: part_rank[kv[0][0]]):
        item_scores, rests, passed = [], [], 0
        for result in graded:
            test = next((t for t in result.tests if t.part == part and t.name == check), None)
            if test is None:
                continue
            share = test.score / test.max_score if test.max_score else 0.0
            item_scores.append(share)
            rests.append(result.score - test.score)
            passed += test.status == "passed"
        students = len(item_scores)
        r = pearson(item_scores, rests)
        flags = []
        if students and passed == students:
            flags.append(NOBODY_FAILS)
        if students and passed == 0:
            flags.append(EVERYBODY_FAILS)
        if r is not None and r < NEGATIVE_BELOW:
            flags.append(NEGATIVE)
        items.append(Item(part, check, points, students, passed, r, tuple(flags)))
    return items


# ----------------------------------------------------------------- misconceptions


@dataclass(frozen=True)
class Misconception:
    """A diagnosis code, its wording, and the students who have it (each once): those to
    invite (``students``), and those whose diagnosis waits for a person (``held_back``)."""

    code: str
    text: str
    students: tuple[str, ...]
    parts: tuple[str, ...]  # where it was diagnosed (one student may have it in several)
    held_back: tuple[str, ...] = ()


def held_back(result: SubmissionResult, assignment: Assignment) -> str:
    """Why a submission's diagnoses are no misconception to invite the student for (``""``:
    they are). A diagnosis reads a function's output as a known mistake; it says nothing
    when what ran is not an attempt at the function. That is the case when the grade itself
    waits on a question of integrity: the code reached for files of the grading machine, or
    the evidence file holds numbers the submitted functions do not compute (as when code
    monkeypatches the checks' helpers and returns zeros: the zeros then "diagnose" as
    zeros for fully masked rows). A person looks first; the report lists them apart. A
    limitation left for a person to read is no such question. (``assignment``: which part is
    its evidence file's.)"""
    if result.status != STATUS_GRADED:
        return "not graded"
    if has_code(result.notes, *note_codes.REACHED_OUT):
        return "its code reached for files of the grading machine"
    evidence = assignment.evidence_part
    if evidence is not None and any(part.needs_review for part in result.parts
                                    if part.part == evidence.name):
        return "its evidence file is not what its functions compute"
    return ""


def misconception_counts(results: Sequence[SubmissionResult], assignment: Assignment
                         ) -> list[Misconception]:
    """Each diagnosed code with the students who have it, counted once per student however
    many parts or checks it was diagnosed in; most frequent first. Students whose
    submission is ``held_back`` are listed apart and not counted; a code only they have is
    left out (it is no misconception of this cohort until a person says so). A code is worded
    as ``assignment``'s checks word it (its own and the engine's codes), else shown as it is."""
    students: dict[str, set[str]] = {}
    held: dict[str, set[str]] = {}
    parts: dict[str, set[str]] = {}
    for result in results:
        target = held if held_back(result, assignment) else students
        for part in result.parts:
            for code in part.diagnoses:
                target.setdefault(code, set()).add(result.student)
                if target is students:
                    parts.setdefault(code, set()).add(part.part)
    rank = {part: i for i, part in enumerate(assignment.part_points)}
    wording = known(assignment)
    found = [
        Misconception(
            code,
            wording.get(code, code),
            tuple(sorted(students[code])),
            tuple(sorted(parts[code], key=lambda p: rank.get(p, len(rank)))),
            tuple(sorted(held.get(code, ()))),
        )
        for code in students
    ]
    return sorted(found, key=lambda m: (-len(m.students), m.code))


@dataclass(frozen=True)
class HeldBack:
    """A student with diagnoses that wait for a person, and why."""

    student: str
    why: str
    codes: tuple[str, ...]


def held_back_students(results: Sequence[SubmissionResult], assignment: Assignment
                       ) -> list[HeldBack]:
    """Every student with a diagnosis held back from the help-hour list (see ``held_back``)."""
    out = []
    for result in results:
        why = held_back(result, assignment)
        codes = tuple(dict.fromkeys(code for part in result.parts for code in part.diagnoses))
        if why and codes:
            out.append(HeldBack(result.student, why, codes))
    return sorted(out, key=lambda h: h.student)


# ----------------------------------------------------------------- who a person looks at


@dataclass(frozen=True)
class ReviewEntry:
    """One student a TA should look at, and why."""

    student: str
    status: str
    reason: str
    details: tuple[str, ...] = ()  # notes, parts to read, grader faults


@dataclass
class ReviewLists:
    needs_review: list[ReviewEntry] = field(default_factory=list)
    ungradable: list[ReviewEntry] = field(default_factory=list)
    grader_errors: list[ReviewEntry] = field(default_factory=list)
    without_results: list[str] = field(default_factory=list)


def review_lists(results: Sequence[SubmissionResult], without_results: Sequence[str] = ()
                 ) -> ReviewLists:
    """Needs-review, ungradable and grader-error students with their reasons."""
    lists = ReviewLists(without_results=list(without_results))
    for result in results:
        details = [note.text for note in [*result.notes, *result.ta_notes]
                   if note.text not in result.reason]  # the reason already says it
        details += [f"part {part.part} is to be read by a person" for part in result.parts
                    if part.needs_review]
        details += [f"grader fault: {fault}" for fault in result.faults]
        entry = ReviewEntry(result.student, result.status, result.reason,
                            tuple(dict.fromkeys(details)))
        if result.status == STATUS_UNGRADABLE:
            lists.ungradable.append(entry)
        elif result.status == STATUS_ERROR:
            lists.grader_errors.append(entry)
        if result.needs_review:
            lists.needs_review.append(entry)
    return lists


# ----------------------------------------------------------------- time


@dataclass(frozen=True)
class Timing:
    """When one student submitted, against the due date."""

    student: str
    submitted_at: str
    due: str
    late: str  # yes | no | unknown
    hours_from_due: float | None  # positive: after the due date
    note: str = ""
    penalty: float = 0.0  # points the course's late policy took off the total
    policy: str = ""  # the late policy in words ("" = none was applied)


def _moment(text: str) -> datetime | None:
    try:
        return parse_time(text) if text else None
    except (ValueError, OverflowError):
        return None


def timings(results: Sequence[SubmissionResult]) -> list[Timing]:
    """Every student's submission time, late flag and distance to the due date."""
    out = []
    for result in results:
        submitted, due = _moment(result.submitted_at), _moment(result.due)
        hours = (submitted - due).total_seconds() / 3600 if submitted and due else None
        note = next((n.text for n in [*result.notes, *result.ta_notes]
                     if n.code in (note_codes.TIME_UNCONFIRMED, note_codes.LATE_NOT_JUDGED)), "")
        out.append(Timing(result.student, result.submitted_at, result.due, result.late_label,
                          hours, note, result.late_penalty, result.late_policy))
    return out
