"""What a bundle's evidence plugin returns from ``part_scores`` is checked at the call
(``autograder.grading.evidence_scores``): a score for every evidence and limitation part, for
no other, a ``PartScore`` within 0..the spec's points, with ``Message``s. A plugin that breaks
it, or raises, makes the submission a grader error for the TA (graded again on the next run),
never a traceback and never the student's zero or unearned points."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from autograder.assignments import load_assignment
from autograder.grading.evidence_scores import part_score_problems
from autograder.grading.scoring import PartScore
from autograder.results.message import Message
from autograder.results.result import STATUS_ERROR, STATUS_GRADED
from tests.bundles import averages_students
from tests.bundles.students import BUNDLES
from tests.support.bundle_copies import copy_bundle, unique_name

NAME = averages_students.NAME
AVERAGES = load_assignment(NAME, [BUNDLES])


def good() -> dict[str, PartScore]:
    return {"evidence": PartScore("evidence", 2, 2), "limitation": PartScore("limitation", 1, 2)}


@pytest.mark.parametrize(("change", "said"), [
    (lambda s: s.pop("limitation"), "has no score for the part `limitation`"),
    (lambda s: s.update(mean=PartScore("mean", 4, 4)), "scores `mean`, which is not an evidence"),
    (lambda s: s.update(limitation={"points": 1}), "gave `limitation` a dict, not a PartScore"),
    (lambda s: s.update(evidence=PartScore("evidence", 3, 2)),
     "gave `evidence` points 3, not a number from 0 to 2"),
    (lambda s: s.update(evidence=PartScore("evidence", -1, 2)), "points -1, not a number"),
    (lambda s: s.update(evidence=PartScore("evidence", math.nan, 2)), "points nan, not a number"),
    (lambda s: s.update(evidence=PartScore("evidence", True, 2)), "points True, not a number"),
    (lambda s: s.update(evidence=PartScore("evidence", 1, 5)),
     "gave `evidence` max_points 5, not the spec's 2"),
    (lambda s: s.update(evidence=PartScore("limitation", 1, 2)),
     "gave `evidence` a PartScore of the part 'limitation'"),
    (lambda s: s.update(evidence=PartScore("evidence", 1, 2, messages=("wrong",))),
     "messages that are not all autograder.results.message.Message"),
])
def test_each_break_of_the_contract_is_named(change, said):
    scores = good()
    assert part_score_problems(scores, AVERAGES) == []
    change(scores)
    problems = part_score_problems(scores, AVERAGES)
    assert len(problems) == 1 and said in problems[0], problems


def test_an_answer_that_is_no_dict_is_named():
    assert part_score_problems([PartScore("evidence", 2, 2)], AVERAGES) == [
        "returned a list, not a dict of part name -> PartScore"]


def test_messages_of_the_record_s_type_keep_it():
    scores = good()
    scores["evidence"] = PartScore("evidence", 0, 2, messages=(Message("m", code="c"),))
    assert part_score_problems(scores, AVERAGES) == []


# ------------------------------------------------------------------ graded, in a sandbox


def plugin_bundle(tmp_path: Path, old: str, new: str) -> str:
    """A copy of the averages bundle whose hooks.py has ``old`` replaced by ``new``, under a
    name of its own, in the folder of bundles ``tmp_path / "bundles"``."""
    name = unique_name(NAME, tmp_path)
    copy_bundle(NAME, tmp_path / "bundles", name, edits={"hooks.py": (old, new)},
                own_check_names=True)
    return name


def grade(tmp_path: Path, name: str):  # noqa: ANN201 - a SubmissionResult
    from autograder.grading.grade_one import GradingSession, grade_submission
    from autograder.grading.submission import load_submission

    assignment = load_assignment(name, [tmp_path / "bundles"])
    folder = averages_students.write_submission(tmp_path / "submitted" / "s1" / name)
    session = GradingSession.start(assignment)
    try:
        return grade_submission(load_submission(folder, "s1", assignment=assignment), session)
    finally:
        session.close()


SCORED = "        return scores\n\n    def ta_notes("


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "fault"), [
    ('        scores["limitation"] = PartScore(limitation.name, 3, limitation.points)\n',
     "part_scores gave `limitation` points 3, not a number from 0 to 2"),
    ('        raise KeyError("a bug in the plugin")\n',
     "part_scores raised KeyError: 'a bug in the plugin'"),
])
def test_a_plugin_s_bug_is_a_grader_error_not_the_student_s_grade(tmp_path, bug, fault):
    name = plugin_bundle(tmp_path, SCORED, bug + SCORED)
    result = grade(tmp_path, name)
    assert result.status == STATUS_ERROR
    assert result.faults == [f"evidence plugin (hooks.py `evidence`): {fault}"]
    assert result.reason.startswith("internal grader error in the evidence plugin, not the "
                                    "student's doing")
    parts = {part.part: part for part in result.parts}
    assert parts["mean"].points == 4  # the code parts are graded as ever
    assert parts["limitation"].points == 0 and "grader's fault" in parts["limitation"].messages[0].text
    assert fault not in str(result.to_gradescope()["tests"])  # the detail is the TA's


@pytest.mark.slow
def test_the_same_bundle_without_the_bug_grades(tmp_path):
    result = grade(tmp_path, plugin_bundle(tmp_path, SCORED, SCORED))
    assert result.status == STATUS_GRADED and result.faults == []
    assert {part.part: part.points for part in result.parts} == {
        "mean": 4, "evidence": 2, "limitation": 1}
