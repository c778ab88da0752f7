"""Who a Gradescope submission is and when it came, from its metadata and the zip's
configuration, without grading anything (the end-to-end runs are in
tests/integrations/gradescope/test_gradescope_metadata.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from autograder.integrations.gradescope import metadata, run, zip_config
from autograder.integrations.gradescope.results import NEEDS_A_PERSON, gradescope_results
from autograder.integrations.gradescope.zip_config import ZipConfig
from autograder.results.late_policy import parse
from autograder.results.result import PartResult, SubmissionResult
from autograder.spec import SpecError
from tests.support.h2 import SPEC

USER = {"email": "Jane.Doe@uni.example", "id": 1234, "name": "Jane Doe"}


def documented(*users: dict, **fields: object) -> dict:
    return {"id": 1, "users": list(users) or [USER], **fields}


@pytest.mark.parametrize(("rule", "user", "expected"), [
    ("sid", {**USER, "sid": "u42"}, ("u42", "sid")),
    ("email", {**USER, "sid": 42}, ("42", "sid")),  # a sid always wins, numbers as text
    ("email", USER, ("Jane.Doe@uni.example", "email")),
    ("email-local", USER, ("Jane.Doe", "email-local")),
])
def test_the_id_is_the_sid_else_what_the_zip_maps(rule, user, expected):
    identity = metadata.identify(documented(user), ZipConfig("a", student_id=rule))
    assert (identity.student_id, identity.source) == expected
    assert identity.label == expected[0] and not identity.problem


def test_a_roster_maps_emails_whatever_their_case():
    config = ZipConfig("a", student_id="roster", roster={"jane.doe@uni.example": "u7"})
    assert metadata.identify(documented(), config).student_id == "u7"
    missing = metadata.identify(documented({**USER, "email": "x@uni.example"}), config)
    assert missing.student_id is None and missing.label == "x@uni.example"
    assert "x@uni.example is not in the zip's roster" in missing.problem


@pytest.mark.parametrize(("data", "said"), [
    (documented(), "the zip maps none"),
    ({"users": []}, "lists no user"),
    ({}, "lists no user"),
    ({"users": "nonsense"}, "lists no user"),
])
def test_no_id_is_one_line_naming_the_fix_never_a_guess(data, said):
    identity = metadata.identify(data, ZipConfig("a"))
    assert identity.student_id is None and said in identity.problem
    assert "\n" not in identity.problem


def test_a_student_id_given_on_the_command_line_wins():
    identity = metadata.identify(documented({**USER, "sid": "u1"}), ZipConfig("a"), "s9")
    assert (identity.student_id, identity.source) == ("s9", "--student-id")


def result() -> SubmissionResult:
    return SubmissionResult("s1", SPEC.name, "graded", parts=[PartResult("p", 50.0, 50.0),
                                                              PartResult("q", 50.0, 50.0)])


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_late_is_created_at_after_the_due_date_and_the_policy_takes_its_share():
    when = metadata.timing(documented(
        created_at="2026-03-03T10:00:00-08:00",
        assignment={"due_date": "2026-03-01T23:59:00-08:00", "late_due_date": None}))
    assert when.submitted == utc("2026-03-03T18:00:00+00:00")
    graded = result()
    metadata.mark(graded, when, parse("10%/day"))
    assert graded.late and not graded.late_unknown and graded.due == "2026-03-02 07:59:00 UTC"
    assert graded.late_penalty == 20 and graded.score == 80  # 1 day 10 h 1 min: two days
    on_time = result()
    metadata.mark(on_time, metadata.timing(documented(
        created_at="2026-03-01T23:58:00-08:00",
        assignment={"due_date": "2026-03-01T23:59:00-08:00"})), parse("10%/day"))
    assert not on_time.late and on_time.late_penalty == 0 and on_time.score == 100


def test_unknown_times_are_never_on_time():
    no_due = result()
    metadata.mark(no_due, metadata.timing(documented(created_at="2026-03-01T10:00:00Z")), None)
    assert no_due.late_unknown and not no_due.needs_review and no_due.ta_notes
    no_time = result()
    metadata.mark(no_time, metadata.timing(documented(
        created_at="yesterday", assignment={"due_date": "2026-03-01T23:59:00-08:00"})),
        parse("10%/day"))
    assert no_time.late_unknown and no_time.needs_review and no_time.late_penalty == 0
    assert any("created_at 'yesterday' is not a time" in note.text for note in no_time.ta_notes)


def test_a_needs_review_result_gets_a_hidden_entry_with_the_reason():
    flagged = result()
    flagged.needs_review, flagged.reason = True, "the evidence file is someone else's"
    data = gradescope_results(flagged, 1.0, SPEC, review=[flagged.reason, "more"])
    entry = [t for t in data["tests"] if t["name"] == NEEDS_A_PERSON]
    assert len(entry) == 1 and entry[0]["visibility"] == "hidden"
    assert entry[0]["max_score"] == 0 and "someone else's" in entry[0]["output"]
    assert data["score"] == 100  # worth nothing: the score is the checks'
    assert not [t for t in gradescope_results(result(), 1.0, SPEC)["tests"]
                if t["name"] == NEEDS_A_PERSON]


# ------------------------------------------------------------------ the roster and config


def test_a_roster_reads_gradescope_s_columns_and_skips_staff(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("\ufeffName,Email,SID,Role\nAda,Ada@Uni.example, u1 ,Student\n"
                    "Tom,ta@uni.example,,TA\n\n", encoding="utf-8")
    assert zip_config.read_roster(path) == {"ada@uni.example": "u1"}
    path.write_text("Email,Matrikel\na@x,1\n", encoding="utf-8")
    assert zip_config.read_roster(path, "matrikel") == {"a@x": "1"}


@pytest.mark.parametrize(("text", "said"), [
    ("Name,SID\nA,1\n", "no Email column"),
    ("Email,Name\na@x,A\n", "no student id column"),
    ("Email,SID\na@x,\n", "line 2: no student id for a@x"),
    ("Email,SID\na@x,1\nA@X,2\n", "a@x has two student ids ('1' and '2')"),
    ("Email,SID\n", "no student rows"),
    ("", "is empty"),
])
def test_a_roster_that_would_give_a_wrong_id_is_refused(tmp_path, text, said):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(zip_config.RosterError, match=said.replace("(", r"\(").replace(")", r"\)")):
        zip_config.read_roster(path)


def test_the_config_round_trips_and_an_old_one_still_reads(tmp_path):
    path = tmp_path / "gradescope_assignment.json"
    config = ZipConfig("a", ("assignments",), "roster", {"x@y": "1"}, parse("5%/hour, cap 20%"))
    path.write_text(config.to_json())
    assert zip_config.read(path) == config
    path.write_text(json.dumps({"assignment": "a", "assignments": []}))  # before issue 29
    assert zip_config.read(path) == ZipConfig("a")


@pytest.mark.parametrize("data", [
    {"assignment": "a", "student_id": "name"},
    {"assignment": "a", "student_id": "roster"},  # a roster zip without its roster
    {"assignment": "a", "late_policy": {"percent": -1}},
    {"assignment": "a", "late_policy": "10%/day"},
])
def test_a_config_that_cannot_be_used_is_one_line(tmp_path, data):
    path = tmp_path / "gradescope_assignment.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SpecError, match="gradescope build") as raised:
        zip_config.read(path)
    assert "\n" not in str(raised.value)


# ------------------------------------------------------------------ the folder uploaded


def test_the_notebook_is_looked_for_one_level_down_only(tmp_path):
    top = tmp_path / "top"
    (top / SPEC.name).mkdir(parents=True)
    (top / SPEC.notebook).write_text("{}")
    (top / SPEC.name / SPEC.notebook).write_text("{}")
    assert run.submission_folder(top, SPEC) == (top, "", "")  # the top wins

    one = tmp_path / "one"
    (one / SPEC.name).mkdir(parents=True)
    (one / SPEC.name / SPEC.notebook).write_text("{}")
    (one / "__MACOSX" / SPEC.name).mkdir(parents=True)
    (one / "__MACOSX" / SPEC.name / f"._{SPEC.notebook}").write_text("")
    (one / "__MACOSX" / "x.ipynb").write_text("")
    folder, note, fatal = run.submission_folder(one, SPEC)
    assert folder == one / SPEC.name and SPEC.name in note and not fatal

    deep = tmp_path / "deep"
    (deep / "a" / "b").mkdir(parents=True)
    (deep / "a" / "b" / SPEC.notebook).write_text("{}")
    folder, note, fatal = run.submission_folder(deep, SPEC)
    assert folder == deep and not note and "your upload holds a/" in fatal


def test_build_refuses_a_bad_policy_or_roster_in_one_line(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("Name\nA\n")
    for options, said in ((["--late-policy", "ten percent"], "late policy 'ten percent'"),
                          (["--roster", str(roster)], "no Email column"),
                          (["--roster-id-column", "SID"], "give both"),
                          (["--student-id", "name"], "invalid choice")):
        done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build",
                               SPEC.name, "--out", str(tmp_path / "out"), *options],
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert said in done.stderr and not (tmp_path / "out").exists(), done.stderr
