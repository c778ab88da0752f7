"""`python -m autograder verify-evidence`: readable and JSON output, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.bundles.h2_attention.evidence import verify_evidence
from autograder.cli import COMMANDS, main
from solutions.evidence import LIMITATION_PLACEHOLDER
from tests.support.h2 import SPEC

from .helpers import COHORT, OTHER_STUDENT, STUDENT

ROOT = Path(__file__).resolve().parents[3]
BUNDLES = ROOT / "tests" / "bundles"  # a second assignment, without an evidence file


def _run(capsys, *argv):
    code = main(["verify-evidence", *map(str, argv)])
    return code, capsys.readouterr()


def test_command_is_registered():
    assert COMMANDS["verify-evidence"][0] == "autograder.assignments.evidence_command"


@pytest.mark.parametrize("named", [(), ("h2_attention",), ("--assignment", "h2_attention")])
def test_the_assignment_may_be_named_or_left_out(capsys, write, reference_evidence, named):
    """Left out, it is the only assignment here with an evidence file (H2)."""
    path = write(SPEC.evidence_file, reference_evidence)
    code, out = _run(capsys, *named, path, "--student-id", STUDENT, "--cohort", COHORT)
    assert code == 0 and "evidence 14/14" in out.out and out.err == ""


def test_an_assignment_without_evidence_says_so_in_one_line(capsys, write, reference_evidence):
    path = write(SPEC.evidence_file, reference_evidence)
    code, out = _run(capsys, "vectors", path, "--assignments", BUNDLES)
    assert code == 2 and out.out == ""
    assert out.err == "error: assignment 'vectors' has no evidence file: there is nothing to verify\n"


def test_an_unknown_assignment_is_one_line(capsys, write, reference_evidence):
    path = write(SPEC.evidence_file, reference_evidence)
    code, out = _run(capsys, "--assignment", "h3_decoder", path)
    assert code == 2 and out.out == "" and len(out.err.splitlines()) == 1
    assert "h3_decoder" in out.err and "h2_attention" in out.err


def test_good_file_exits_zero(capsys, write, reference_evidence):
    path = write(SPEC.evidence_file, reference_evidence)
    code, out = _run(capsys, path, "--student-id", STUDENT, "--cohort", COHORT)
    assert code == 0
    assert "OK" in out.out and "evidence 14/14" in out.out and "limitation 8/8" in out.out
    assert out.err == ""


def test_invalid_file_exits_one_and_lists_findings(capsys, write, evidence):
    evidence["limitation"] = LIMITATION_PLACEHOLDER
    evidence["hand_example"]["scale"] = 0.5
    path = write(SPEC.evidence_file, evidence)
    code, out = _run(capsys, path, "--student-id", STUDENT, "--cohort", COHORT)
    assert code == 1
    assert "INVALID" in out.out
    assert "/hand_example/scale" in out.out and "scale_wrong" in out.out
    assert "/limitation" in out.out and "placeholder sentence" in out.out


def test_copied_file_exits_one(capsys, write, reference_evidence):
    path = write(SPEC.evidence_file, reference_evidence)
    code, out = _run(capsys, path, "--student-id", OTHER_STUDENT, "--cohort", COHORT)
    assert code == 1 and "another student id" in out.out


@pytest.mark.parametrize("content", [None, b"[1, 2]", b"{\"a\": NaN}"])
def test_missing_or_unreadable_exits_two(capsys, write, tmp_path, content):
    path = tmp_path / "absent.json" if content is None else write("e.json", content)
    code, out = _run(capsys, path)
    assert code == 2
    assert "Traceback" not in out.out + out.err


def test_json_output_is_the_report(capsys, write, evidence):
    evidence["parity"][0]["atol"] = 1.0
    path = write("e.json", evidence)
    code, out = _run(capsys, path, "--json", "--student-id", STUDENT, "--cohort", COHORT)
    payload = json.loads(out.out)
    assert code == 1
    assert payload == verify_evidence(path, student_id=STUDENT, cohort=COHORT).to_dict()
    assert payload["status"] == "invalid"
    assert [f["code"] for f in payload["findings"]] == ["parity_tolerance_unreasonable"]
    assert payload["findings"][0]["pointer"] == "/parity/0"


def test_batch_reports_every_file_and_the_worst_code(capsys, write, reference_evidence, tmp_path):
    good = write("good.json", reference_evidence)
    bad = write("bad.json", b"[" * 100_000)
    missing = tmp_path / "missing.json"
    code, out = _run(capsys, good, bad, missing, "--json")
    payload = json.loads(out.out)
    assert code == 2
    assert [r["status"] for r in payload] == ["ok", "unreadable", "missing"]
    code, out = _run(capsys, good, bad, missing)
    assert all(str(p) in out.out for p in (good, bad, missing))


def test_module_entry_point(write, reference_evidence):
    path = write(SPEC.evidence_file, reference_evidence)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "verify-evidence", str(path), "--student-id", STUDENT,
         "--cohort", COHORT], cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout
    help_text = subprocess.run(
        [sys.executable, "-m", "autograder", "verify-evidence", "--help"], cwd=ROOT,
        capture_output=True, text=True, timeout=120,
    ).stdout
    help_text = " ".join(help_text.split())
    assert "--student-id" in help_text and "Exit status: 0" in help_text
