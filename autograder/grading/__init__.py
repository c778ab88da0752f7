"""Grading a submission of an assignment with its hidden checks: run them, then score per part.

    results = run_checks(student, assignment)      # list[CheckResult], fixed order
    scores = score_parts(results, assignment)      # dict[part, PartScore]
    scores = merge_part_scores(scores, other_scores)  # e.g. the evidence parts

The engine knows an assignment only as the ``Assignment`` it is given
(``autograder.assignments``); nothing here names one.

The names are loaded on first use (PEP 562): importing a light submodule such as
``autograder.grading.submission`` does not import pytest and the checks' machinery, so the
batch command can start its sandbox before paying for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autograder.grading.plugin import CheckResult
    from autograder.grading.runner import GradingError, run_checks
    from autograder.grading.scoring import PartScore, merge_part_scores, score_parts, total

_HOME = {
    "CheckResult": "autograder.grading.plugin",
    "GradingError": "autograder.grading.runner",
    "run_checks": "autograder.grading.runner",
    "PartScore": "autograder.grading.scoring",
    "merge_part_scores": "autograder.grading.scoring",
    "score_parts": "autograder.grading.scoring",
    "total": "autograder.grading.scoring",
}

__all__ = [
    "CheckResult",
    "GradingError",
    "PartScore",
    "merge_part_scores",
    "run_checks",
    "score_parts",
    "total",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value
