"""Gradescope as an oracle (issue 38, item 6): when students see the hidden checks' results.

A student resubmits as often as they like, so a hidden check's name, points and diagnosis
shown at upload time let them resubmit until every hidden check passes. `gradescope build
--hidden-visibility` stores Gradescope's word for when they show (default
``after_due_date``) in the zip's configuration, and the zip's run_autograder puts it on every
graded entry and on the top level (the total); one entry, shown at once whatever is chosen,
says whether the notebook ran or why it could not be graded.

Each zip is built by the command and run for real in a tree laid out like /autograder (the
small ``vectors`` test bundle from a folder: three functions, no evidence file, so each
run takes seconds), on this machine's installed dependencies.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder.integrations.gradescope import results, scripts, zip_config
from autograder.integrations.gradescope.build import ZIP_NAME
from autograder.integrations.gradescope.results import gradescope_results
from autograder.results import result as record
from autograder.spec import SpecError
from tests.bundles import students
from tests.support.gradescope_tree import run_upload, unpack_like_gradescope

PARTS = set(students.assignment().part_points)
VALUES = ("after_due_date", "after_published", "hidden", "visible")
SUBMISSION_ENTRY = "your submission"  # the entry shown at once
# What that entry says of when the hidden checks' results appear.
WHEN = {"after_due_date": "appear here after the due date",
        "after_published": "once your instructor publishes the grades",
        "hidden": "are not shown here", "visible": "are below"}


def gradescope_build(out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`gradescope build` of the vectors bundle (the command, as an instructor runs it)."""
    return subprocess.run(
        [sys.executable, "-m", "autograder", "gradescope", "build", students.NAME,
         "--assignments", str(students.BUNDLES), "--out", str(out), *options],
        capture_output=True, text=True, timeout=120, check=False)


def built_zip(tmp_path: Path, *options: str) -> Path:
    done = gradescope_build(tmp_path / "dist", *options)
    assert done.returncode == 0, done.stderr
    return tmp_path / "dist" / ZIP_NAME


def stored_visibility(zip_path: Path) -> str:
    with zipfile.ZipFile(zip_path) as archive:
        return json.loads(archive.read(scripts.CONFIG_JSON))["hidden_visibility"]


def run_like_gradescope(zip_path: Path, root: Path,
                        make_submission: Callable[[Path], None]) -> dict:
    """Unpack ``zip_path`` as /autograder/source, upload one submission, run the tree's
    run_autograder (Gradescope's copy at the top) and return its results.json."""
    unpack_like_gradescope(zip_path, root)
    make_submission(root / "submission")
    return run_upload(root, "s501", students.NAME)


def buggy(folder: Path) -> None:
    students.write_submission(folder, buggy=True)


def broken(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / f"{students.NAME}.ipynb").write_text('{"cells": [', encoding="utf-8")


def graded_entries(data: dict) -> list[dict]:
    """The entries the hidden checks made (tagged with their part)."""
    return [test for test in data["tests"] if test["tags"] and test["tags"][0] in PARTS]


def shown_at_once(data: dict) -> dict:
    entries = [test for test in data["tests"] if test["name"] == SUBMISSION_ENTRY]
    assert len(entries) == 1, [test["name"] for test in data["tests"]]
    return entries[0]


def plain(markdown: str) -> str:
    return markdown.replace("\\", "")


@pytest.mark.parametrize("visibility", VALUES)
def test_each_visibility_goes_into_the_zip_and_onto_every_hidden_check(tmp_path, visibility):
    zip_path = built_zip(tmp_path, "--hidden-visibility", visibility)
    assert stored_visibility(zip_path) == visibility
    data = run_like_gradescope(zip_path, tmp_path / "autograder", buggy)
    checks = graded_entries(data)
    assert {test["tags"][0] for test in checks} == PARTS
    assert [test["visibility"] for test in checks] == [visibility] * len(checks)
    # The total is made of the hidden checks: the top level waits with them.
    assert data["visibility"] == visibility and data["stdout_visibility"] == "hidden"
    failed = [test for test in checks if test["status"] == "failed"]
    assert failed and all(test["output"] for test in failed)  # a diagnosis to hold back
    assert 0 < data["score"] < data["max_score"]
    # Shown at once whatever is chosen: the notebook ran, and when the rest appears; not a
    # check's name, points or the total.
    entry = shown_at_once(data)
    assert entry["visibility"] == "visible" and entry["max_score"] == 0
    assert entry["status"] == "passed"
    said = plain(entry["output"])
    assert "ran" in said and WHEN[visibility] in said, said
    assert not [test["name"] for test in checks if test["name"] in said], said
    assert f"{data['score']:g}" not in said
    assert all(test["visibility"] == "hidden" for test in data["tests"]
               if test["name"] == results.NEEDS_A_PERSON)


def test_the_default_waits_for_the_due_date_and_an_ungradable_notebook_says_why_at_once(
        tmp_path):
    zip_path = built_zip(tmp_path)
    assert stored_visibility(zip_path) == "after_due_date"
    data = run_like_gradescope(zip_path, tmp_path / "autograder", broken)
    assert data["extra_data"]["status"] == "ungradable"
    checks = graded_entries(data)
    assert checks and {test["visibility"] for test in checks} == {"after_due_date"}
    assert data["visibility"] == "after_due_date"
    # The student's own file is the problem: they see why at once, and can fix it.
    entry = shown_at_once(data)
    assert entry["visibility"] == "visible" and entry["status"] == "failed"
    said = plain(entry["output"])
    assert f"{students.NAME}.ipynb is not a valid notebook" in said, said
    assert WHEN["after_due_date"] in said
    review = [test for test in data["tests"] if test["name"] == results.NEEDS_A_PERSON]
    assert len(review) == 1 and review[0]["visibility"] == "hidden"


def test_a_bad_visibility_is_refused_in_one_line_naming_the_choices(tmp_path):
    done = gradescope_build(tmp_path / "dist", "--hidden-visibility", "soon")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "--hidden-visibility" in done.stderr and "'soon'" in done.stderr
    assert all(value in done.stderr for value in VALUES), done.stderr
    assert not (tmp_path / "dist" / ZIP_NAME).exists()


def test_a_config_with_a_bad_visibility_is_one_line_naming_the_choices(tmp_path):
    path = tmp_path / scripts.CONFIG_JSON
    path.write_text(json.dumps({"assignment": "a", "hidden_visibility": "soon"}))
    with pytest.raises(SpecError) as raised:
        zip_config.read(path)
    said = str(raised.value)
    assert "\n" not in said and "'soon'" in said and all(value in said for value in VALUES)


def test_results_default_to_after_the_due_date():
    """run-autograder without a zip's configuration holds the hidden checks back too."""
    result = record.SubmissionResult(
        "s1", students.NAME, "graded", parts=[record.PartResult("dot", 1.0, 2.0)],
        tests=[record.TestResult("dot of two vectors", "dot", 1.0, 2.0, "failed")])
    data = gradescope_results(result, 1.0, students.assignment())
    assert data["visibility"] == "after_due_date"
    assert [test["visibility"] for test in graded_entries(data)] == ["after_due_date"]
    assert shown_at_once(data)["visibility"] == "visible"
