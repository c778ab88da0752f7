"""`report` and `cohort report` refuse, in one line, what they cannot describe (fast: no
grading); the graded case is in test_report_course."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.report import ReportError, write_report
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)


def write_config(tmp: Path) -> Path:
    path = tmp / "cohorts.toml"
    path.write_text(f'[defaults]\ncourses_root = "{tmp / "courses"}"\n'
                    f'exchange = "{tmp / "exchange"}"\n\n'
                    '[cohorts.fall-a]\ndue = "2030-01-01 00:00:00 UTC"\n')
    return path


def test_an_ungraded_root_is_refused(tmp_path):
    (tmp_path / "submitted" / "s1" / SPEC.name).mkdir(parents=True)
    with pytest.raises(ReportError, match="nothing graded"):
        write_report(tmp_path, SPEC)
    line = one_line_error(cli("report", "--root", str(tmp_path)))
    assert line.startswith(f"error: nothing graded for {SPEC.name} in {tmp_path}")
    assert "autograde" in line


def test_a_missing_root_and_a_bad_option_are_one_line(tmp_path):
    line = one_line_error(cli("report", "--root", str(tmp_path / "nowhere")))
    assert "is not a folder" in line
    line = one_line_error(cli("report", "--colour"))
    assert line == "error: unrecognized arguments: --colour (see `python -m autograder report --help`)"


def test_help_names_every_figure():
    done = cli("report", "--help")
    assert done.returncode == 0
    for name in ("report.html", "scores.csv", "items.csv", "misconceptions.csv", "review.csv",
                 "submission_times.csv", "similarity.csv", "evidence_copies.csv", "--cohort",
                 "--out", "--root"):
        assert name in done.stdout, name
    assert "report" in cli("--help").stdout


def test_cohort_report_refuses_a_cohort_never_graded(tmp_path):
    config = write_config(tmp_path)
    line = one_line_error(cli("cohort", "--config", str(config), "report", "fall-a"))
    assert "never released" in line
    root = tmp_path / "courses" / "fall-a"
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n")
    shutil.copytree(SPEC.release_dir, root / "release" / SPEC.name)
    line = one_line_error(cli("cohort", "--config", str(config), "report", "fall-a"))
    assert line.startswith("error: nothing graded yet for cohort fall-a: run "
                           "`python -m autograder cohort grade fall-a` first")
    assert not (root / "report").exists()
