"""Grading a submission with the hidden checks: run them, then score per part.

    results = run_checks(student)      # list[CheckResult], fixed order
    scores = score_parts(results)      # dict[part, PartScore]
    scores = merge_part_scores(scores, other_scores)  # e.g. the evidence parts
"""

from autograder.grading.plugin import CheckResult
from autograder.grading.runner import GradingError, run_checks
from autograder.grading.scoring import (
    PartScore,
    merge_part_scores,
    score_parts,
    total,
)

__all__ = [
    "CheckResult",
    "GradingError",
    "PartScore",
    "merge_part_scores",
    "run_checks",
    "score_parts",
    "total",
]
