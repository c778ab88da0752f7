"""Kept versions (``autograder.batch.versions``) and the rule that picks one
(``autograder.batch.version_rule``), without grading anything: keeping is idempotent and
never loses a replaced version; a kept version's lateness comes from its own receipt; each
rule picks as documented, in both directions; what the student and grades.csv are told."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta

import pytest

from autograder.base.course import TIMESTAMP_TXT, Course
from autograder.batch import lateness, receipts, version_rule, versions
from autograder.results import root_settings
from autograder.results.late_policy import LatePolicy
from autograder.results.result import PartResult, SubmissionResult
from autograder.results.version_note import sentence
from autograder.views import grades_csv
from tests.support.cli import parse_refusal
from tests.support.h2 import SPEC

DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
POLICY = LatePolicy(percent=10)


def _submit(course: Course, student: str, text: str, when: datetime) -> None:
    folder = course.submitted(student)
    shutil.rmtree(folder, ignore_errors=True)  # nbgrader collect --update replaces the folder
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(text)
    (folder / TIMESTAMP_TXT).write_text(receipts.time_text(when))


def test_keeping_is_idempotent_and_keeps_replaced_versions(tmp_path):
    course = Course(tmp_path, SPEC.name)
    _submit(course, "s1", '{"cells": []}', DUE - timedelta(hours=1))
    first = versions.keep(course, "s1")
    assert first is not None and first.folder.name == first.hash[:16]
    assert versions.keep(course, "s1") == first  # same content: nothing new
    assert versions.keep_all(course) == 0
    assert len(list(versions.student_folder(course, "s1").iterdir())) == 1
    _submit(course, "s1", '{"cells": [], "metadata": {}}', DUE + timedelta(hours=3))
    assert versions.keep_all(course) == 1
    kept = versions.kept(course, "s1")
    assert [v.hash for v in kept][0] == first.hash and len(kept) == 2  # oldest first
    assert (first.files / SPEC.notebook).read_text() == '{"cells": []}'
    meta = json.loads((first.folder / versions.VERSION_JSON).read_text())
    assert meta["hash"] == first.hash and meta["submitted_at"].startswith("2026-12-14 22:59")
    assert meta["collected_at"] and meta["receipt"] is None


def test_a_kept_version_is_judged_by_its_own_receipt(tmp_path):
    course = Course(tmp_path, SPEC.name)
    claim = DUE - timedelta(hours=1)
    _submit(course, "s1", '{"cells": []}', claim)
    digest = versions.content_hash(course.submitted("s1"))
    receipts.save(tmp_path, SPEC.name, {"s1": receipts.Receipt(
        receipts.SOURCE_EXCHANGE, receipts.time_text(claim + timedelta(seconds=5)),
        "its files reached the exchange", digest)})
    old = versions.keep(course, "s1")
    assert old.receipt is not None and old.receipt.submission_hash == digest
    # Resubmitted late: the course's receipt is now the new one's, the kept one keeps its own.
    _submit(course, "s1", '{"cells": [1]}', DUE + timedelta(days=1))
    new_digest = versions.content_hash(course.submitted("s1"))
    receipts.save(tmp_path, SPEC.name, {"s1": receipts.Receipt(
        receipts.SOURCE_EXCHANGE, receipts.time_text(DUE + timedelta(days=1)),
        "its files reached the exchange", new_digest)})
    judged = lateness.decide_kept(old.files, versions.load(old.folder).receipt, DUE)
    assert (judged.late, judged.unknown, judged.time_source) == (False, False, "exchange")
    versions.keep(course, "s1")
    chosen = version_rule.plan(course, "s1", version_rule.LAST_ON_TIME, DUE)
    assert chosen.newest.hash == new_digest and chosen.on_time.hash == old.hash
    assert version_rule.plan(course, "s1", version_rule.NEWEST, DUE).on_time is None
    # An extension that makes the newest on time: nothing to fall back on.
    assert version_rule.plan(course, "s1", version_rule.LAST_ON_TIME,
                             DUE + timedelta(days=2)).on_time is None


def _result(points: float, late: bool, submitted: datetime, digest: str) -> SubmissionResult:
    return SubmissionResult("s1", SPEC.name, "graded", parts=[PartResult("p", points, 100.0)],
                            late=late, submitted_at=f"{submitted:%Y-%m-%d %H:%M:%S} UTC",
                            submission_hash=digest, due="2026-12-14 23:59:00 UTC")


LATE_AT = DUE + timedelta(hours=30)  # two started days: 20 points off


@pytest.mark.parametrize(("rule", "on_time_points", "expected", "why"), [
    (version_rule.NEWEST, 70, (80, "late"), "newest"),
    (version_rule.LAST_ON_TIME, 70, (70, "on_time"), "last_on_time"),
    (version_rule.BEST_AFTER_PENALTY, 70, (80, "late"), "better_after_penalty"),
    (version_rule.BEST_AFTER_PENALTY, 95, (95, "on_time"), "better_after_penalty"),
    (version_rule.BEST_AFTER_PENALTY, 80, (80, "on_time"), "tie_on_time"),
])
def test_each_rule_counts_the_expected_version(rule, on_time_points, expected, why):
    late = _result(100, True, LATE_AT, "b" * 64)
    timely = _result(on_time_points, False, DUE - timedelta(hours=1), "a" * 64)
    counted, reason = version_rule.choose(rule, late, timely, POLICY, DUE)
    assert (counted.score, "late" if counted.submission_hash == "b" * 64 else "on_time") == expected
    assert reason == why
    assert late.late_penalty == 0 and timely.late_penalty == 0  # the inputs are untouched


def test_a_bad_rule_is_one_line_naming_the_three():
    with pytest.raises(version_rule.VersionRuleError) as refused:
        version_rule.parse("best")
    assert str(refused.value) == ("version rule 'best' is not one of newest, last_on_time, "
                                  "best_after_penalty")


@pytest.mark.parametrize("text", ["last-on-time", "Last_On_Time", " newest"])
def test_a_rule_spelled_otherwise_is_refused_naming_the_one_meant(text):
    """Issue 51: "any other value is refused", the guide says; `last-on-time` was taken."""
    with pytest.raises(version_rule.VersionRuleError) as refused:
        version_rule.parse(text)
    meant = text.strip().lower().replace("-", "_")
    assert str(refused.value) == (f"version rule {text!r} is not one of newest, last_on_time, "
                                  f"best_after_penalty (did you mean {meant}?)")
    said = parse_refusal(["autograde", "--version-rule", text]).strip()
    assert "\n" not in said and str(refused.value) in said


def test_the_rule_is_remembered_and_a_bad_stored_one_refused(tmp_path):
    settings, said = root_settings.remember(tmp_path, "hw", version_rule="last_on_time")
    assert settings.version_rule == "last_on_time" and "version rule of hw" in said[0]
    assert root_settings.load(tmp_path, "hw").version_rule == "last_on_time"
    assert root_settings.remember(tmp_path, "hw")[0].version_rule == "last_on_time"
    data = json.loads((tmp_path / "course.json").read_text())
    data["hw"]["version_rule"] = "oldest"
    (tmp_path / "course.json").write_text(json.dumps(data))
    with pytest.raises(root_settings.RootSettingsError, match="is not one of newest"):
        root_settings.load(tmp_path, "hw")


def _versioned() -> SubmissionResult:
    result = _result(70, False, DUE - timedelta(hours=1), "a" * 64)
    result.version = {"rule": "last_on_time", "counted": "a" * 16, "why": "last_on_time",
                      "versions": [
                          {"hash": "a" * 16, "submitted_at": "2026-12-14 22:59:00 UTC",
                           "late": "no", "score": 70},
                          {"hash": "b" * 16, "submitted_at": "2026-12-16 05:59:00 UTC",
                           "late": "yes", "score": 80}]}
    return result


def test_the_student_is_told_which_version_counted():
    assert sentence(_versioned().version) == (
        "Your submission of 2026-12-14 22:59 UTC counts (the course grades the last on-time "
        "submission); a later one of 2026-12-16 05:59 UTC was kept and scored 80 after its "
        "late penalty.")
    assert sentence({}) == ""
    one = {"rule": "newest", "counted": "a" * 16, "why": "newest",
           "versions": _versioned().version["versions"][:1]}
    assert sentence(one) == ""  # today's rule and one version: nothing to say


def test_grades_csv_ends_with_the_counted_version_and_results_json_keeps_it(tmp_path):
    from autograder.results.result import load, save

    result = _versioned()
    save(result, tmp_path / "results.json")
    assert load(tmp_path / "results.json").version == result.version
    old = result.to_gradescope()
    del old["extra_data"]["version"]  # a results.json written before versions existed
    assert SubmissionResult.from_gradescope(old).version == {}
    row = grades_csv.row(result)
    assert row["counted_version"] == "2026-12-14 22:59:00 UTC"
    assert grades_csv.header(SPEC)[-3:] == ["reason", "counted_version", "ta_notes"]
    assert grades_csv.counted_version(_result(1, False, DUE, "c" * 64)) == ""


def test_under_newest_grades_csv_names_no_counted_version():
    """Issue 51: after going back to `newest` from another rule, the column kept the newest
    version's time, as if a rule had chosen it."""
    result = _versioned()
    result.version = {**result.version, "rule": "newest", "counted": "b" * 16, "why": "newest"}
    assert grades_csv.row(result)["counted_version"] == ""
    assert "the course grades the newest submission" in sentence(result.version)


def test_a_bad_version_rule_in_cohorts_toml_is_refused(tmp_path):
    from autograder.integrations.cohorts.config import CohortConfigError, get_cohort

    config = tmp_path / "cohorts.toml"
    config.write_text(f'[cohorts.fall]\nassignment = "{SPEC.name}"\nversion_rule = "best"\n')
    with pytest.raises(CohortConfigError, match="version rule 'best' is not one of newest, "
                                                "last_on_time, best_after_penalty"):
        get_cohort("fall", config)
    config.write_text(f'[cohorts.fall]\nassignment = "{SPEC.name}"\n'
                      'version_rule = "best_after_penalty"\n')
    assert get_cohort("fall", config).version_rule == "best_after_penalty"


def _autograde(root, *args: str):  # noqa: ANN001, ANN202
    import subprocess
    import sys

    from autograder.spec import REPO

    return subprocess.run([sys.executable, "-m", "autograder", "autograde", SPEC.name, "--root",
                           str(root), "--no-progress", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=False)


def test_a_bad_version_rule_on_the_command_line_is_one_line(tmp_path):
    from tests.support.cli import one_line_error

    (tmp_path / "submitted" / "s1" / SPEC.name).mkdir(parents=True)
    line = one_line_error(_autograde(tmp_path, "--version-rule", "best"))
    assert "version rule 'best' is not one of newest, last_on_time, best_after_penalty" in line
    assert not (tmp_path / "course.json").exists()


def test_a_bad_version_rule_in_course_json_is_one_line(tmp_path):
    from tests.support.cli import one_line_error

    (tmp_path / "submitted" / "s1" / SPEC.name).mkdir(parents=True)
    (tmp_path / "course.json").write_text(json.dumps({SPEC.name: {"version_rule": "oldest"}}))
    line = one_line_error(_autograde(tmp_path))
    assert "version rule 'oldest' is not one of newest, last_on_time, best_after_penalty" in line


def test_a_bad_version_rule_in_cohorts_toml_is_one_line_from_cohort_grade(tmp_path):
    import subprocess
    import sys

    from autograder.spec import REPO
    from tests.support.cli import one_line_error

    config = tmp_path / "cohorts.toml"
    config.write_text(f'[cohorts.fall]\nassignment = "{SPEC.name}"\nversion_rule = "best"\n')
    done = subprocess.run([sys.executable, "-m", "autograder", "cohort", "grade", "fall",
                           "--config", str(config)], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    assert "version rule 'best' is not one of newest, last_on_time, best_after_penalty" in \
        one_line_error(done)


def test_what_a_person_reads_is_the_version_that_counts(tmp_path):
    """Review's text to judge and the report's comparisons read the counted version's files,
    not a later resubmission's in submitted/ (last_on_time counted the earlier one)."""
    course = Course(tmp_path, SPEC.name)
    _submit(course, "s1", '{"cells": ["on time"]}', DUE - timedelta(hours=1))
    on_time = versions.keep(course, "s1")
    _submit(course, "s1", '{"cells": ["late"]}', DUE + timedelta(hours=3))
    versions.keep(course, "s1")
    counted = SubmissionResult("s1", SPEC.name, "graded", version={"counted": on_time.short})
    assert versions.graded_files(course, counted) == on_time.files
    assert "on time" in (versions.graded_files(course, counted) / SPEC.notebook).read_text()
    newest = SubmissionResult("s1", SPEC.name, "graded")  # rule newest: nothing chosen
    assert versions.graded_files(course, newest) == course.submitted("s1")


def test_the_counted_versions_copy_is_read_again_only_after_results_json_changed(
        tmp_path, monkeypatch):
    """The kept version's copy of results.json is rewritten when the student was graded
    again (results.json newer than the copy, or a different grading), and otherwise not even
    read: every batch composes every student."""
    from autograder.base.course import RESULTS_JSON
    from autograder.batch import counted
    from autograder.results.result import load, save

    course = Course(tmp_path, SPEC.name)
    _submit(course, "s1", '{"cells": []}', DUE - timedelta(hours=1))
    versions.keep(course, "s1")
    digest = versions.content_hash(course.submitted("s1"))
    graded = _result(70, False, DUE - timedelta(hours=1), digest)
    results = course.autograded("s1") / RESULTS_JSON
    save(graded, results)
    plan = version_rule.plan(course, "s1", version_rule.NEWEST, DUE)
    copy = plan.newest.results_json
    reads: list = []
    monkeypatch.setattr(counted, "load", lambda path: reads.append(path) or load(path))

    def compose(result: SubmissionResult) -> None:
        counted.compose(course, SPEC, plan, result, {}, POLICY, DUE)

    def written(path, seconds_ago: float) -> None:  # file times set, not left to the clock
        stamp = int((datetime.now(UTC).timestamp() - seconds_ago) * 1e9)
        os.utime(path, ns=(stamp, stamp))

    written(results, 60)
    compose(graded)  # no copy yet: written
    assert load(copy).score == 70 and reads == [copy]
    compose(graded)  # the copy is newer than results.json: not read
    assert reads == [copy]
    regraded = _result(90, False, DUE - timedelta(hours=1), digest)
    regraded.grading_key = "another key"  # graded again: results.json rewritten
    save(regraded, results)
    written(copy, 30)
    written(results, 20)
    compose(regraded)
    assert load(copy).score == 90 and reads == [copy, copy]
    written(copy, 10)
    written(results, 5)  # rewritten, the same grading (a decision's note, say)
    compose(regraded)
    assert reads == [copy, copy, copy]  # read, found current, not written: checked now
    assert load(copy).score == 90
    compose(regraded)
    assert reads == [copy, copy, copy]
