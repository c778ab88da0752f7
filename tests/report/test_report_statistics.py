"""The report's figures on results written the way the grader writes them (results.json
through ``save`` and ``load``), with patterns a real cohort rarely shows on demand: a
check everybody fails, one that strong students fail."""

from __future__ import annotations

import math

import pytest

from autograder.report import statistics
from autograder.results import note_codes
from autograder.results import result as saved  # (its TestResult is not a pytest class)
from autograder.results.message import Message
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    load,
    save,
)
from tests.support.h2 import SPEC

PART = SPEC.function_parts[0]
OTHER = SPEC.function_parts[1]


def result(student: str, checks: dict[str, bool], extra: float, *, status: str = STATUS_GRADED,
           diagnoses: dict[str, list[str]] | None = None) -> SubmissionResult:
    """A student whose ``PART`` checks pass or fail as given, with ``extra`` points in
    ``OTHER`` (the rest of their score)."""
    tests = [saved.TestResult(name, PART, 1.0 if ok else 0.0, 1.0, "passed" if ok else "failed")
             for name, ok in checks.items()]
    diagnoses = diagnoses or {}
    parts = [PartResult(PART, sum(t.score for t in tests), len(tests),
                        diagnoses=diagnoses.get(PART, [])),
             PartResult(OTHER, extra, 20.0, diagnoses=diagnoses.get(OTHER, []))]
    return SubmissionResult(student, SPEC.name, status, parts=parts, tests=tests)


def saved_and_loaded(results: list[SubmissionResult], tmp_path) -> list[SubmissionResult]:
    out = []
    for r in results:
        path = tmp_path / r.student / "results.json"
        save(r, path)
        out.append(load(path))
    return out


def test_flags_of_item_analysis(tmp_path):
    rows = [  # check "broken" is failed by the strong students only
        result("a", {"easy": True, "broken": False, "hard": False, "good": True}, 20),
        result("b", {"easy": True, "broken": False, "hard": False, "good": True}, 18),
        result("c", {"easy": True, "broken": True, "hard": False, "good": False}, 5),
        result("d", {"easy": True, "broken": True, "hard": False, "good": False}, 3),
        result("e", {"easy": False, "broken": False, "hard": False, "good": False}, 0,
               status=STATUS_UNGRADABLE),  # not counted: fails for another reason
    ]
    items = {i.check: i for i in statistics.item_analysis(saved_and_loaded(rows, tmp_path), SPEC)}
    assert items["easy"].flags == (statistics.NOBODY_FAILS,)
    assert items["easy"].discrimination is None and items["easy"].students == 4
    assert items["hard"].flags == (statistics.EVERYBODY_FAILS,)
    assert items["broken"].flags == (statistics.NEGATIVE,)
    assert items["broken"].discrimination < -0.9
    assert items["good"].flags == () and items["good"].discrimination > 0.9
    assert items["good"].pass_share == 0.5


def test_discrimination_is_the_correlation_with_the_rest_of_the_score():
    rows = [result("a", {"x": True}, 10), result("b", {"x": False}, 12),
            result("c", {"x": True}, 2)]
    (item,) = statistics.item_analysis(rows, SPEC)
    scores, rests = [1.0, 0.0, 1.0], [10.0, 12.0, 2.0]  # rest = total minus the check
    mx, my = sum(scores) / 3, sum(rests) / 3
    cov = sum((s - mx) * (r - my) for s, r in zip(scores, rests, strict=True))
    expected = cov / math.sqrt(sum((s - mx) ** 2 for s in scores) *
                               sum((r - my) ** 2 for r in rests))
    assert item.discrimination == pytest.approx(expected)


def test_a_misconception_counts_each_student_once():
    rows = [
        result("a", {"x": True}, 10, diagnoses={PART: ["dtype_not_preserved"],
                                                OTHER: ["dtype_not_preserved"]}),
        result("b", {"x": True}, 10, diagnoses={OTHER: ["dtype_not_preserved", "mask_inverted"]}),
        result("c", {"x": True}, 10),
    ]
    found = {m.code: m for m in statistics.misconception_counts(rows, SPEC)}
    assert found["dtype_not_preserved"].students == ("a", "b")
    assert found["dtype_not_preserved"].parts == (PART, OTHER)
    assert found["mask_inverted"].students == ("b",)
    assert "float32" in found["dtype_not_preserved"].text  # the students' wording
    assert [m.code for m in statistics.misconception_counts(rows, SPEC)][0] == "dtype_not_preserved"


def test_review_lists_say_why():
    ungradable = SubmissionResult("u", SPEC.name, STATUS_UNGRADABLE, reason="JSON is broken",
                                  needs_review=True)
    error = SubmissionResult("e", SPEC.name, STATUS_ERROR, reason="worker died",
                             faults=["check crashed"])
    review = SubmissionResult("r", SPEC.name, STATUS_GRADED, needs_review=True,
                              notes=[Message("a cell tried to open files of the grading machine")])
    lists = statistics.review_lists([ungradable, error, review], ["missing"])
    assert [e.student for e in lists.needs_review] == ["u", "r"]
    assert [(e.student, e.reason) for e in lists.ungradable] == [("u", "JSON is broken")]
    assert lists.grader_errors[0].details == ("grader fault: check crashed",)
    assert lists.needs_review[1].details == ("a cell tried to open files of the grading machine",)
    assert lists.without_results == ["missing"]


def test_timings_against_the_due_date():
    late = SubmissionResult("l", SPEC.name, STATUS_GRADED, submitted_at="2026-12-15 01:59:00 UTC",
                            due="2026-12-14 23:59:00 UTC", late=True)
    unknown = SubmissionResult("u", SPEC.name, STATUS_GRADED, due="2026-12-14 23:59:00 UTC",
                               late_unknown=True,
                               notes=[Message("no submission time (timestamp.txt missing): check",
                                              code=note_codes.TIME_UNCONFIRMED, review=True)])
    (t_late, t_unknown) = statistics.timings([late, unknown])
    assert t_late.hours_from_due == pytest.approx(2.0) and t_late.late == "yes"
    assert t_unknown.hours_from_due is None and t_unknown.late == "unknown"
    assert "timestamp.txt missing" in t_unknown.note


def test_a_submission_under_an_integrity_review_is_no_misconception():
    """Issue 26: the monkeypatching demo student returns zeros everywhere, which diagnoses as
    "zeros for a fully masked row"; their evidence file is not what their code computes (the
    evidence part waits for a person). They are listed apart, never invited to a help hour."""
    honest = result("a", {"x": True}, 10, diagnoses={PART: ["all_masked_zeros"]})
    patched = result("m", {"x": False}, 0, diagnoses={PART: ["all_masked_zeros",
                                                             "dtype_not_preserved"]})
    patched.parts.append(PartResult("evidence", 2, 14, needs_review=True))
    patched.needs_review = True
    unjudged = result("u", {"x": True}, 10, diagnoses={PART: ["all_masked_zeros"]})
    unjudged.parts.append(PartResult("limitation", 4, 8, needs_review=True))  # no such question
    found = {m.code: m for m in statistics.misconception_counts([honest, patched, unjudged], SPEC)}
    assert found["all_masked_zeros"].students == ("a", "u")
    assert found["all_masked_zeros"].held_back == ("m",)
    assert "dtype_not_preserved" not in found  # only the held-back student has it
    (held,) = statistics.held_back_students([honest, patched, unjudged], SPEC)
    assert held.student == "m" and held.codes == ("all_masked_zeros", "dtype_not_preserved")
    assert "evidence" in held.why


def test_code_that_reached_for_the_grading_machine_is_held_back():
    reached = result("r", {"x": False}, 0, diagnoses={PART: ["softmax_wrong_axis"]})
    # Its words do not matter, its kind does (nothing parses a sentence).
    reached.notes = [Message("any words at all", code=note_codes.REACHED_OUT_CELL, review=True)]
    assert statistics.held_back(reached, SPEC)
    assert statistics.misconception_counts([reached], SPEC) == []


def test_review_details_do_not_repeat_the_reason():
    note = "`stable_softmax` did not finish in time"
    looped = SubmissionResult("l", SPEC.name, STATUS_GRADED, reason=note, notes=[Message(note)],
                              needs_review=True, parts=[PartResult("evidence", 2, 14,
                                                                   needs_review=True)])
    (entry,) = statistics.review_lists([looped]).needs_review
    assert entry.reason == note and note not in entry.details


def test_a_late_policy_is_stated_and_each_penalty_shown_in_the_report_and_its_csvs(tmp_path):
    """Issue 37: after a late policy took points off, the report still said "Flagged, not
    penalised." and neither its table nor its CSVs had a penalty column."""
    import csv

    from autograder.report import figures_csv

    penalised = SubmissionResult("p", SPEC.name, STATUS_GRADED,
                                 parts=[PartResult(PART, 10, 10), PartResult(OTHER, 20, 20)],
                                 submitted_at="2026-12-16 01:59:00 UTC",
                                 due="2026-12-14 23:59:00 UTC", late=True,
                                 late_policy="10% of the maximum per started day late",
                                 late_penalty=6.0)
    (timing,) = statistics.timings([penalised])
    assert (timing.penalty, timing.policy) == (6.0, penalised.late_policy)
    header, rows = figures_csv.scores_rows([penalised], [timing], [PART, OTHER])
    row = dict(zip(header, rows[0], strict=True))
    assert (row["total"], row["late_penalty"]) == ("24", "6")
    figures_csv.write_csv(tmp_path / "t.csv", *figures_csv.scores_rows([penalised], [timing],
                                                                        [PART, OTHER]))
    assert next(csv.DictReader((tmp_path / "t.csv").open()))["late_penalty"] == "6"

    root = tmp_path / "course"
    (root / "submitted" / "p" / SPEC.name).mkdir(parents=True)
    save(penalised, root / "autograded" / "p" / SPEC.name / "results.json")
    from autograder.report.build import build_report
    from autograder.report.loading import load_course
    from autograder.report.render import render_html

    page = render_html(build_report(load_course(root, SPEC.name), SPEC, None))
    assert "Flagged, not penalised" not in page
    assert f"Penalised by the course's late policy ({penalised.late_policy})" in page
    assert "<th class=\"num\">penalty</th>" in page and "−6</td>" in page
