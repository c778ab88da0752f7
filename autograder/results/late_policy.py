"""A course's late policy: a share of the maximum per started day (or hour) late, a cap, a grace.

Written once, in ``cohorts.toml`` (``[late_policy]`` for every cohort, or a cohort's own
``late_policy`` table) or on the command line (``--late-policy "10%/day, cap 50%, grace
15m"``), and applied once, to the grade of record (``apply``): the penalty is a field of
the result beside the parts, so every output that shows the total (grades.csv, results.json,
feedback.html, the gradebook, the LMS files, the report) shows it after the penalty, and the
policy and the due date it was measured against are recorded with it. A submission whose
lateness is unknown gets no penalty (it goes to review instead): a person decides.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.results.result import SubmissionResult

UNITS = {"day": timedelta(days=1), "hour": timedelta(hours=1)}
# A grace longer than a year is a typo (and past what dates can hold it overflows): refused
# when the policy is read, before anything is remembered.
MAX_GRACE_MINUTES = 366 * 24 * 60
_CLAUSE = re.compile(
    r"^\s*(?:(?P<percent>\d+(?:\.\d+)?)\s*%\s*/\s*(?P<per>day|hour)"
    r"|cap\s+(?P<cap>\d+(?:\.\d+)?)\s*%"
    r"|grace\s+(?P<grace>\d+(?:\.\d+)?)\s*(?P<grace_unit>m|min|h)\s*)\s*$")


class LatePolicyError(ValueError):
    """A policy that cannot be read: one line saying what to write instead."""


@dataclass(frozen=True)
class LatePolicy:
    """``percent`` of the maximum per started ``per`` (day or hour) after the due date and the
    grace period, at most ``cap`` percent."""

    percent: float = 0.0
    per: str = "day"
    cap: float = 100.0
    grace_minutes: float = 0.0

    def __post_init__(self) -> None:
        if self.per not in UNITS:
            raise LatePolicyError(f"late policy: per must be 'day' or 'hour', not {self.per!r}")
        for name in ("percent", "cap", "grace_minutes"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise LatePolicyError(f"late policy: {name} must be a number >= 0, not {value!r}")
        if self.grace_minutes > MAX_GRACE_MINUTES:
            raise LatePolicyError(f"late policy: a grace of {self.grace_minutes:g} minutes is "
                                  f"more than a year; give at most {MAX_GRACE_MINUTES:g} "
                                  "minutes (or extend the due date instead)")
        if self.percent > 100:
            raise LatePolicyError(f"late policy: {self.percent:g}% per {self.per} is more than "
                                  "the whole maximum; give at most 100%")
        if self.cap > 100:
            raise LatePolicyError(f"late policy: cap is a percentage of the maximum, at most "
                                  f"100, not {self.cap:g}")

    @property
    def active(self) -> bool:
        return self.percent > 0 and self.cap > 0

    def describe(self) -> str:
        """The policy in words: "10% of the maximum per started day late, at most 50%, after
        a grace of 15 minutes"."""
        if not self.active:
            return "no late penalty"
        text = f"{self.percent:g}% of the maximum per started {self.per} late"
        if self.cap < 100:
            text += f", at most {self.cap:g}%"
        if self.grace_minutes:
            text += f", after a grace of {self.grace_minutes:g} minutes"
        return text

    def penalty(self, submitted: datetime, due: datetime, max_score: float) -> float:
        """Points off for a submission at ``submitted`` against ``due`` (0 when on time or
        within the grace period)."""
        late_by = submitted - due - timedelta(minutes=self.grace_minutes)
        if not self.active or late_by <= timedelta(0):
            return 0.0
        started = math.ceil(late_by / UNITS[self.per])
        share = min(self.cap, started * self.percent)
        return round(max_score * share / 100, 6)


def from_table(table: dict) -> LatePolicy:
    """A policy from a TOML table: ``percent``, ``per``, ``cap``, ``grace_minutes``."""
    unknown = set(table) - {"percent", "per", "cap", "grace_minutes"}
    if unknown:
        raise LatePolicyError(f"late policy: unknown key(s) {', '.join(sorted(unknown))} "
                              "(known: percent, per, cap, grace_minutes)")
    try:
        return LatePolicy(**table)
    except TypeError as error:
        raise LatePolicyError(f"late policy: {error}") from None


def parse(text: str) -> LatePolicy:
    """``"10%/day, cap 50%, grace 15m"`` (clauses in any order; "none" for no penalty)."""
    if text.strip().lower() in ("", "none", "0"):
        return LatePolicy()
    values: dict = {}
    for clause in text.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            raise LatePolicyError(f"late policy {text!r}: cannot read {clause.strip()!r}; write "
                                  "e.g. '10%/day, cap 50%, grace 15m' (or 'none')")
        if match["percent"]:
            values.update(percent=float(match["percent"]), per=match["per"])
        elif match["cap"]:
            values["cap"] = float(match["cap"])
        else:
            minutes = float(match["grace"]) * (60 if match["grace_unit"] == "h" else 1)
            values["grace_minutes"] = minutes
    return LatePolicy(**values)


def apply(result: SubmissionResult, policy: LatePolicy, due: datetime | None,
          submitted: datetime | None) -> SubmissionResult:
    """Set ``result``'s late penalty (in place, and returned): once, from the policy, the due
    date that applied to this student (an extension included) and the submission time.
    Unknown lateness gets none (a person decides)."""
    result.late_penalty = 0.0
    result.late_policy = policy.describe() if policy.active else ""
    if (policy.active and result.late and not result.late_unknown
            and due is not None and submitted is not None):
        before = result.parts_score
        result.late_penalty = min(before, policy.penalty(submitted, due, result.max_score))
    return result
