"""The evidence and limitation parts' scores, taken from the bundle's plugin and checked at
the call.

``EvidencePlugin.part_scores`` is a bundle's code. A bug there (a part left out, a part the
spec does not have, points above the part's, a sentence where a ``Message`` belongs, an
exception) would otherwise be a traceback, a student's silent zero or points nobody earned.
So what it returns is checked here, and a wrong answer is a grader fault: the submission is
a grader error (``assemble.submission_result``: not saved as graded, graded again on the next
run, the detail the TA's), never the student's grade.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autograder.grading.scoring import PartScore
from autograder.results.message import Message

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.assignments.plugins import EvidencePlugin

NOT_GRADED = ("not graded: the grader's evidence plugin failed (the grader's fault, not "
              "yours); this part is graded again on the next run")


def part_score_problems(scores: object, assignment: Assignment) -> list[str]:
    """Each way ``scores`` (what ``part_scores`` returned) breaks the contract: a
    ``PartScore`` under its own part's name for every evidence and limitation part of the
    spec and for no other part, with ``max_points`` the spec's, ``points`` a number within
    0..max, ``messages`` of ``Message``."""
    wanted = {name: points for name, points in assignment.part_points.items()
              if name not in assignment.function_parts}
    if not isinstance(scores, Mapping):
        return [f"returned a {type(scores).__name__}, not a dict of part name -> PartScore"]
    problems = [f"has no score for the part `{name}`" for name in wanted if name not in scores]
    for name, score in scores.items():
        if name not in wanted:
            problems.append(f"scores `{name}`, which is not an evidence or limitation part of "
                            f"the spec ({', '.join(wanted)})")
        elif not isinstance(score, PartScore):
            problems.append(f"gave `{name}` a {type(score).__name__}, not a PartScore")
        else:
            problems += [f"gave `{name}` {problem}" for problem in _score_problems(
                name, score, wanted[name])]
    return problems


def _score_problems(name: str, score: PartScore, points: int) -> list[str]:
    problems = []
    if score.part != name:
        problems.append(f"a PartScore of the part {score.part!r}")
    if score.max_points != points:
        problems.append(f"max_points {score.max_points!r}, not the spec's {points}")
    number = isinstance(score.points, int | float) and not isinstance(score.points, bool)
    if not number or not math.isfinite(score.points) or not 0 <= score.points <= points:
        problems.append(f"points {score.points!r}, not a number from 0 to {points}")
    if not all(isinstance(message, Message) for message in score.messages):
        problems.append("messages that are not all autograder.results.message.Message")
    return problems


def evidence_part_scores(plugin: EvidencePlugin[Any, Any], report: object, provenance: object,
                         assignment: Assignment) -> tuple[list[PartScore], str]:
    """The evidence and limitation parts' scores from ``plugin.part_scores`` and "" when
    they keep the contract; else each of those parts unscored and the grader fault, one line
    for the TA."""
    try:
        scores = plugin.part_scores(report, provenance)
        problems = part_score_problems(scores, assignment)
    except Exception as error:  # noqa: BLE001 - the plugin's bug is the grader's fault, not a crash
        problems = [f"raised {type(error).__name__}: {error}"]
    if not problems:
        return [scores[name] for name in assignment.part_points if name in scores], ""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    fault = (f"evidence plugin (hooks.py `evidence`): part_scores {problems[0]}{more}")[:2000]
    unscored = [PartScore(name, 0, points, messages=(Message(NOT_GRADED),))
                for name, points in assignment.part_points.items()
                if name not in assignment.function_parts]
    return unscored, fault
