"""The course's version rule through the real `autograde` (issue 37): a student who
submitted on time and then resubmitted late is graded under each rule, and every output says
which version counted. On the small vectors bundle (10 points; the version rule is the
engine's): student ``a`` was weaker on time (6: a wrong ``normalize``) than late after the
penalty (10 - 1 = 9); student ``b`` was better on time (10) than late (9)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.batch import receipts, versions
from autograder.results.result import load
from tests.support.commands import autograde_ok, grades_rows
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

pytestmark = pytest.mark.slow

DEMO_DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
DUE = f"{DEMO_DUE:%Y-%m-%d %H:%M} UTC"
ON_TIME = DEMO_DUE - timedelta(hours=2)
LATE = DEMO_DUE + timedelta(hours=26)  # two started days: 5% a day of 10 points is 1 point
WEAKER = REFERENCE | {"normalize": WRONG_NORMALIZE}  # 6 of 10


def _autograde(root: Path, *args: str) -> str:
    return autograde_ok(root, VECTORS.name, "--assignments", str(BUNDLES), *args)


def _hand_in(root: Path, student: str, when: datetime, functions: dict[str, str]) -> None:
    folder = submit(root, student, functions)
    (folder / TIMESTAMP_TXT).write_text(receipts.time_text(when), encoding="utf-8")


def _rows(course: Course) -> dict[str, dict[str, str]]:
    return grades_rows(course.grades_csv())


def _resubmit_late(root: Path, course: Course, student: str) -> None:
    shutil.rmtree(course.submitted(student))  # as nbgrader collect --update replaces it
    _hand_in(root, student, LATE, REFERENCE)  # correct, 26 h late: 2 started days


def _counted(course: Course, student: str) -> tuple[float, str, str]:
    result = load(course.autograded(student) / RESULTS_JSON)
    return result.score, result.version.get("counted", ""), result.version.get("why", "")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """One root through five runs: on time; late resubmissions under newest; last_on_time
    (--force: the kept versions are graded again); best_after_penalty (nothing regraded);
    back to newest."""
    root = tmp_path_factory.mktemp("versions") / "course"
    _hand_in(root, "a", ON_TIME, WEAKER)
    _hand_in(root, "b", ON_TIME, REFERENCE)
    course = Course(root, VECTORS.name)
    said = {"first": _autograde(root, "--due", DUE, "--late-policy", "5%/day")}
    on_time = {s: versions.kept(course, s)[0].short for s in "ab"}
    for student in "ab":
        _resubmit_late(root, course, student)
    said["newest"] = _autograde(root)
    late = {s: versions.kept(course, s)[-1].short for s in "ab"}
    out = {"course": course, "said": said, "on_time": on_time, "late": late}
    out["newest"] = {s: _counted(course, s) for s in "ab"}
    out["newest_page"] = (course.autograded("a") / "feedback.html").read_text(encoding="utf-8")
    said["last"] = _autograde(root, "--version-rule", "last_on_time", "--force")
    out["last"] = {s: _counted(course, s) for s in "ab"}
    out["last_rows"] = _rows(course)
    out["last_page"] = (course.autograded("a") / "feedback.html").read_text(encoding="utf-8")
    said["best"] = _autograde(root, "--version-rule", "best_after_penalty")
    out["best"] = {s: _counted(course, s) for s in "ab"}
    out["best_rows"] = _rows(course)
    out["best_page"] = (course.autograded("a") / "feedback.html").read_text(encoding="utf-8")
    out["best_settings"] = json.loads((root / "course.json").read_text())
    said["back"] = _autograde(root, "--version-rule", "newest")
    out["back"] = {s: _counted(course, s) for s in "ab"}
    out["back_rows"] = _rows(course)
    return out


def test_every_version_is_kept_with_its_own_result(graded):
    course = graded["course"]
    for student in "ab":
        kept = versions.kept(course, student)
        assert [v.short for v in kept] == [graded["on_time"][student], graded["late"][student]]
        assert all(load(v.results_json) is not None for v in kept)
        assert kept[0].submitted_at.startswith(f"{graded_time(ON_TIME)}")
    assert load(versions.kept(course, "a")[0].results_json).parts_score == 6


def graded_time(moment) -> str:  # noqa: ANN001
    return f"{moment:%Y-%m-%d %H:%M:%S}"


def test_newest_penalises_the_late_resubmission(graded):
    assert graded["newest"]["a"] == (9, graded["late"]["a"], "newest")
    assert graded["newest"]["b"] == (9, graded["late"]["b"], "newest")
    # Two versions: the page says which counted, and what the earlier one scored.
    assert "counts (the course grades the newest submission" in graded["newest_page"]
    assert "an earlier one of" in graded["newest_page"] and "scored 6" in graded["newest_page"]


def test_last_on_time_grades_the_on_time_version(graded):
    assert graded["last"]["a"] == (6, graded["on_time"]["a"], "last_on_time")
    assert graded["last"]["b"] == (10, graded["on_time"]["b"], "last_on_time")
    assert "version rule of" in graded["said"]["last"] and "last_on_time" in graded["said"]["last"]
    rows = graded["last_rows"]
    assert (rows["a"]["total"], rows["a"]["late"], rows["a"]["late_penalty"]) == ("6", "no", "0")
    assert rows["a"]["counted_version"] == f"{graded_time(ON_TIME)} UTC"
    page = graded["last_page"]
    assert f"Your submission of {ON_TIME:%Y-%m-%d %H:%M} UTC counts (the course grades the " \
           "last on-time submission)" in page
    assert "a later one of" in page and "scored 9 after its late penalty" in page


def test_best_after_penalty_takes_the_higher_either_way(graded):
    assert graded["best"]["a"] == (9, graded["late"]["a"], "better_after_penalty")
    assert graded["best"]["b"] == (10, graded["on_time"]["b"], "better_after_penalty")
    rows = graded["best_rows"]
    assert (rows["a"]["total"], rows["a"]["late"], rows["a"]["late_penalty"]) == ("9", "yes", "1")
    assert (rows["b"]["total"], rows["b"]["late"]) == ("10", "no")
    assert "scored higher after the late penalty" in graded["best_page"]
    # Remembered, and nothing graded again: every version's result was current.
    assert "0 assessed in this run, 2 unchanged" in graded["said"]["best"]


def test_back_to_newest_no_counted_version_is_left_in_grades_csv(graded):
    """Issue 51: the column kept a version's time after going back to `newest`."""
    assert graded["back"]["b"] == (9, graded["late"]["b"], "newest")
    rows = graded["back_rows"]
    assert (rows["b"]["total"], rows["b"]["late"]) == ("9", "yes")
    assert rows["a"]["counted_version"] == rows["b"]["counted_version"] == ""


def test_the_rule_is_remembered_by_the_root(graded):
    assert graded["best_settings"][VECTORS.name]["version_rule"] == "best_after_penalty"
    settings = json.loads((graded["course"].root / "course.json").read_text())
    assert "version_rule" not in settings[VECTORS.name]  # newest, the default, is not written
