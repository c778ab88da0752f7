"""What `cohort` steps print (issue 51, items 8 and 12): `cohort export` gives summary.md's
path and one line, not the whole file; an unreadable results.json is named among those left
out of the LMS files, not called "no results.json yet"; Ctrl-C in `cohort collect` does not
say "what was already graded is kept" (nothing was graded)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder import cli
from autograder.base.course import RESULTS_JSON, Course
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult, save
from autograder.spec import REPO
from autograder.views import grades_csv
from tests.integrations.cohorts.test_cohort_cli import fake_release, vectors_config
from tests.support.vectors import VECTORS


def _graded(tmp_path: Path) -> tuple[Path, Course]:
    """A released cohort root with two graded students (as the grader saves them)."""
    config = vectors_config(tmp_path)
    cohort = fake_release(config)
    course = Course(cohort.root, cohort.assignment)
    parts = [PartResult(name, points, points) for name, points in VECTORS.part_points.items()]
    results = [SubmissionResult(s, VECTORS.name, STATUS_GRADED, parts=parts) for s in ("s1", "s2")]
    for result in results:
        course.submitted(result.student).mkdir(parents=True)
        save(result, course.autograded(result.student) / RESULTS_JSON)
    grades_csv.write(results, course.grades_csv(), VECTORS)
    return config, course


def _export(config: Path) -> subprocess.CompletedProcess:
    bin_dir = str(Path(sys.executable).parent)  # nbgrader export runs alembic from there
    return subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(config), "export",
         "fall-a"], cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})


def test_cohort_export_prints_the_summarys_path_and_one_line(tmp_path):
    config, course = _graded(tmp_path)
    done = _export(config)
    assert done.returncode == 0, done.stderr
    assert "## Most frequent misconceptions" not in done.stdout  # the file says it
    assert f"summary: {course.root / 'summary.md'}" in done.stdout
    assert "2 submissions: 2 graded" in done.stdout
    assert "## Most frequent misconceptions" in (course.root / "summary.md").read_text()


def test_an_unreadable_results_json_is_named_by_export_not_called_missing(tmp_path):
    config, course = _graded(tmp_path)
    broken = course.autograded("s2") / RESULTS_JSON
    broken.write_text(broken.read_text()[:100])  # truncated
    done = _export(config)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("  s2:")]
    assert f"autograded/s2/{course.assignment}/results.json is unreadable" in line, line
    assert "no results.json yet" not in line, line


def test_ctrl_c_in_cohort_collect_does_not_say_graded_work_is_kept(tmp_path, monkeypatch, capsys):
    config, _ = _graded(tmp_path)

    def ctrl_c(*args: object, **kwargs: object) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(workflow, "collect", ctrl_c)
    assert cli.main(["cohort", "--config", str(config), "collect", "fall-a"]) == 130
    said = capsys.readouterr().err
    assert "graded is kept" not in said and "collect" in said, said


def test_an_lms_only_cohort_is_released_without_an_exchange(tmp_path):
    """``exchange = ""``: `cohort release` generates the release in the course root and
    releases to no exchange; `collect` then needs the LMS download (issue 51, item 8)."""
    from tests.integrations.cohorts.test_cohort_cli import cohort_cli
    from tests.support.cli import one_line_error

    config = vectors_config(tmp_path)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(f'exchange = "{tmp_path / "exchange"}"', 'exchange = ""'),
                      encoding="utf-8")
    assert get_cohort("fall-a", config).exchange is None
    released = cohort_cli(config, "release", "fall-a")
    assert released.returncode == 0, released.stdout + released.stderr
    assert "no exchange" in released.stdout and "--zip" in released.stdout
    root = tmp_path / "courses" / "fall-a"
    assert (root / "release" / VECTORS.name / VECTORS.notebook).is_file()
    assert "Exchange.root" not in (root / "nbgrader_config.py").read_text(encoding="utf-8")
    assert not (tmp_path / "exchange").exists()
    assert "no exchange (LMS only" in cohort_cli(config, "list").stdout
    line = one_line_error(cohort_cli(config, "collect", "fall-a"))
    assert "has no exchange" in line and "--zip FILE" in line
