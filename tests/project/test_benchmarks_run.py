"""The benchmarks still run and still measure grading, not a grader error: a benchmark that
rots silently reports the cost of failing (profile_grading.py once timed 56 grader errors
out of 60 submissions). Each runs at its smallest size; no figure it prints is asserted."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from autograder.spec import REPO

pytestmark = pytest.mark.slow


def _run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_profile_grading_grades_its_submissions():
    out = _run("profile_grading.py", "--size", "3", "--no-cprofile")
    (statuses,) = re.findall(r"^Statuses: (\{.*?\})", out, flags=re.MULTILINE)
    assert statuses == "{'graded': 3}", out[-1500:]
    assert re.search(r"\| \[checks, Call\] \| \d", out), out  # round trips were timed


def test_the_floor_is_measured_on_the_reference():
    out = _run("floor.py", "--assignment", "vectors", "--bundles", "tests/bundles", "--runs", "3")
    assert re.search(r"the floor .*: \d+\.\d ms", out) and re.search(r"in [1-9]\d* calls", out), out


def test_a_round_trip_is_measured_in_an_isolated_worker():
    out = _run("round_trip.py", "--calls", "20")
    assert "seccomp" in out and re.search(r"nothing: \d+ us wall", out), out
    assert re.search(r"forked process: \d+ us wall, \d+ us CPU", out), out
    assert re.search(r"dot: \d+ us wall, \d+ us CPU trusted, \d+ us CPU worker", out), out


def test_the_stage_tables_of_two_kept_revisions_compare():
    kept = sorted((REPO / "benchmarks" / "figures").glob("*.json"))
    assert len(kept) >= 2
    out = _run("stage_table.py", str(kept[0]), str(kept[1]))
    assert "sandbox side" in out, out


def test_the_journals_overhead_is_measured_inside_a_change():
    out = _run("journal_overhead.py", "--students", "5", "--rounds", "1")
    assert re.search(r"plain: [\d.]+-[\d.]+ s CPU for 15 writes", out), out
    assert re.search(r"journaled: [\d.]+-[\d.]+ s CPU for 15 writes", out), out
