"""The docs' example evidence plugin (``tests/bundles/averages``) through the commands, as an
instructor's own bundle: ``autograde --assignments tests/bundles`` scores the evidence part
(the section kept when the student's ``mean`` computes the file's number, lost when it does
not) and leaves the limitation to a person, whose text ``review list`` shows;
``verify-evidence`` describes a file and exits with the plugin's code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignments import load_assignment
from autograder.authoring.sample_cohort import build
from autograder.base.course import RESULTS_JSON
from autograder.spec import REPO
from tests.bundles import averages_students
from tests.bundles.students import BUNDLES

pytestmark = pytest.mark.slow

NAME = averages_students.NAME
QUICK = ("--jobs", "2", "--no-progress", "--cell-timeout", "10", "--call-timeout", "5")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=900, check=False)


def succeeded(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, (done.args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("averages-course")
    # The bundle's own sample students (samples.py's build_sample_cohort, as `make demo` uses H2's).
    roster = build(load_assignment(NAME, [BUNDLES]), root)
    assert roster == {"a1-correct": "correct", "a2-forged": "forged", "a3-blank": "blank"}
    succeeded(cli("autograde", NAME, "--assignments", str(BUNDLES), "--root", str(root),
                  *QUICK))
    return root


def parts(root: Path, student: str) -> dict[str, dict]:
    data = json.loads((root / "autograded" / student / NAME / RESULTS_JSON)
                      .read_text(encoding="utf-8"))
    return {part["part"]: part for part in data["extra_data"]["parts"]}


def test_the_evidence_part_is_scored_from_the_student_s_own_function(graded):
    correct, forged = parts(graded, "a1-correct"), parts(graded, "a2-forged")
    assert {name: part["points"] for name, part in correct.items()} == \
        {"mean": 4, "evidence": 2, "limitation": 1}
    assert correct["limitation"]["needs_review"] and not correct["evidence"]["needs_review"]
    assert forged["mean"]["points"] < 4 and forged["evidence"]["points"] == 0
    (message,) = forged["evidence"]["messages"]
    assert message["code"] == "not_reproduced" and message["pointer"] == "/mean_example/mean"


def test_the_hooks_misconception_explains_the_bug_first(graded):
    """hooks.py's ``misconceptions`` words the code the check diagnosed (``diagnoses=``)."""
    forged, correct = parts(graded, "a2-forged")["mean"], parts(graded, "a1-correct")["mean"]
    assert forged["diagnoses"] == ["divides_by_n_minus_1"] and correct["diagnoses"] == []
    explained = load_assignment(NAME, [BUNDLES]).misconceptions["divides_by_n_minus_1"]
    assert forged["explanations"] == [explained]
    page = (graded / "autograded" / "a2-forged" / NAME / "feedback.html").read_text(encoding="utf-8")
    assert "one less than the number of values" in page


def test_a_placeholder_limitation_scores_nothing_and_is_not_for_review(graded):
    blank = parts(graded, "a3-blank")
    assert blank["limitation"]["points"] == 0 and not blank["limitation"]["needs_review"]
    assert blank["limitation"]["messages"][0]["code"] == "no_limitation"


def test_review_list_shows_the_limitation_text_from_the_evidence_file(graded):
    out = succeeded(cli("review", "list", "--assignment", NAME, "--assignments", str(BUNDLES),
                        "--root", str(graded)))
    assert "a1-correct: " in out and "a3-blank" not in out
    assert "  limitation: 1/2 provisional" in out
    assert f"    text: {averages_students.LIMITATION}" in out


def test_verify_evidence_describes_the_file_with_the_plugin_s_exit_code(graded, tmp_path):
    good = graded / "submitted" / "a1-correct" / NAME / "averages_evidence.json"
    done = cli("verify-evidence", NAME, str(good), "--assignments", str(BUNDLES))
    assert done.returncode == 0 and "averages_evidence.json: ok" in done.stdout, done.stderr
    wrong = tmp_path / "averages_evidence.json"
    wrong.write_text(json.dumps({"mean_example": {"values": [1, 2], "mean": 2}}))
    done = cli("verify-evidence", NAME, str(wrong), "--assignments", str(BUNDLES), "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["status"] == "invalid"  # one file: an object
    done = cli("verify-evidence", NAME, str(tmp_path / "none.json"), "--assignments",
               str(BUNDLES))
    assert done.returncode == 2 and "missing" in done.stdout


def test_the_assignment_is_named_first_even_beside_a_folder_of_its_name(graded):
    """Run from the folder of bundles (it holds averages/): the name is the assignment, not
    a file to check."""
    good = graded / "submitted" / "a1-correct" / NAME / "averages_evidence.json"
    done = subprocess.run([sys.executable, "-m", "autograder", "verify-evidence", NAME,
                           str(good), "--assignments", str(BUNDLES)], cwd=BUNDLES,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "averages_evidence.json: ok" in done.stdout, done.stderr
