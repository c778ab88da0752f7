"""Which kept version of a submission counts: the course's ``version_rule``.

* ``newest`` (the default, and what nbgrader does): the submission in ``submitted/``.
* ``last_on_time``: when the newest is late and an earlier kept version was on time (both
  against the student's own due date, an extension included), that earlier one counts
  (nbgrader#1171's ``collect --before-duedate``).
* ``best_after_penalty``: the last on-time version and the newest late one are both
  graded; the higher score after the late penalty counts, a tie going to the on-time one.

A student whose newest submission is on time (or whose lateness is unknown, which a
person decides) has nothing to choose between: the newest counts under every rule. The
rule only decides *which* version counts; grading and the late penalty are as for any
submission. Each version's lateness is judged from its own recorded times
(``autograder.batch.lateness.decide_kept``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime

from autograder.base.course import Course, parse_time
from autograder.batch import lateness
from autograder.batch.versions import Version, kept
from autograder.grading.submission import content_hash
from autograder.results import late_policy
from autograder.results.late_policy import LatePolicy
from autograder.results.result import SubmissionResult, load
from autograder.results.version_rules import (  # noqa: F401  (this module's names too)
    BEST_AFTER_PENALTY,
    LAST_ON_TIME,
    NEWEST,
    RULES,
    WHY_BETTER,
    WHY_LAST_ON_TIME,
    WHY_NEWEST,
    WHY_TIE,
    VersionRuleError,
    parse,
)


@dataclass(frozen=True)
class Plan:
    """What the rule needs for one student: every kept version with its lateness, the newest
    (the one in ``submitted/``), and the on-time version to fall back on (None: the newest
    counts and is graded as every submission is)."""

    rule: str
    kept: list[tuple[Version, lateness.Lateness]]
    newest: Version | None
    on_time: Version | None = None


def _on_time(judged: lateness.Lateness) -> bool:
    return not judged.late and not judged.unknown and bool(judged.submitted_at)


def plan(course: Course, student: str, rule: str, due: datetime | None) -> Plan:
    """The student's versions under ``rule`` against ``due`` (their own due date)."""
    current = course.submitted(student)
    digest = content_hash(current) if current.is_dir() else ""
    judged = []
    for version in kept(course, student):
        decided = (lateness.decide(current, due) if version.hash == digest
                   else lateness.decide_kept(version.files, version.receipt, due))
        judged.append((version, decided))
    newest = next(((v, j) for v, j in judged if v.hash == digest), None)
    if rule == NEWEST or newest is None or due is None:
        return Plan(rule, judged, newest[0] if newest else None)
    late = newest[1].late and not newest[1].unknown
    earlier = [v for v, j in judged if v.hash != digest and _on_time(j)]
    return Plan(rule, judged, newest[0], earlier[-1] if late and earlier else None)


def after_penalty(result: SubmissionResult, policy: LatePolicy, due: datetime | None
                  ) -> SubmissionResult:
    """A copy of ``result`` with the late policy applied (the result itself is unchanged)."""
    penalised = copy.deepcopy(result)
    return late_policy.apply(penalised, policy, due, _time(penalised.submitted_at))


def choose(rule: str, newest: SubmissionResult, on_time: SubmissionResult, policy: LatePolicy,
           due: datetime | None) -> tuple[SubmissionResult, str]:
    """Which of the late newest and the last on-time result counts under ``rule`` (a copy,
    the late penalty applied), and why (a ``WHY_*`` code)."""
    late, timely = after_penalty(newest, policy, due), after_penalty(on_time, policy, due)
    if rule == LAST_ON_TIME:
        return timely, WHY_LAST_ON_TIME
    if rule == BEST_AFTER_PENALTY:
        if late.score > timely.score:
            return late, WHY_BETTER
        return timely, WHY_TIE if late.score == timely.score else WHY_BETTER
    return late, WHY_NEWEST


def describe(chosen: Plan, counted: str, why: str, policy: LatePolicy, due: datetime | None,
             scores: dict[str, float] | None = None) -> dict:
    """results.json's ``version``: the rule, the counted version (16 hex digits), why, and
    every kept version with its time, lateness and score after the late penalty (None: not
    graded). ``scores``: by full hash, those known now; the others from their results.json."""
    scores = dict(scores or {})
    listed = []
    for version, judged in chosen.kept:
        score = scores.get(version.hash)
        if score is None:
            saved = load(version.results_json)
            if saved is not None and saved.submission_hash == version.hash:
                score = after_penalty(saved, policy, due).score
        listed.append({
            "hash": version.short, "submitted_at": judged.submitted_at,
            "late": "unknown" if judged.unknown else ("yes" if judged.late else "no"),
            "score": score})
    return {"rule": chosen.rule, "counted": counted[:16], "why": why, "versions": listed}


def _time(text: str) -> datetime | None:
    try:
        return parse_time(text) if text else None
    except (ValueError, OverflowError):
        return None
