"""A cohort root's settings of record are its cohorts.toml (issue 51, item 1): `cohort grade`
took back what `autograde --extension` had set in the same root (``extension ... taken
back``; a student dropped from 100 to 90, late, in every output). Now `autograde` there
refuses an option that disagrees with the file, in one line naming both values and the file
to edit, and grades with the file's settings as `cohort grade` does; the same value is
accepted. A plain root keeps course.json as its record. On the small ``vectors`` bundle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.results import root_settings
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.cohort_config import term_config
from tests.support.vectors import BUNDLES, VECTORS, submit

DUE = "2026-12-14 23:59:00 UTC"
EXTENDED = "2026-12-16 23:59:00 UTC"


def autograde(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "autograde", "--root", str(root),
                           "--no-progress", "--jobs", "1", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def cohort_root(tmp_path: Path) -> Path:
    """Cohort ``term`` of ``vectors`` (s1 extended in cohorts.toml), its root with two
    submissions, as `cohort release` / `cohort grade` leave its course.json."""
    config = term_config(tmp_path, DUE, bundles=BUNDLES, defaults='version_rule = "newest"',
                         cohort=f'[cohorts.term.extensions]\ns1 = "{EXTENDED}"')
    cohort = get_cohort("term", config)
    for student in ("s1", "s2"):
        submit(cohort.root, student)
    workflow.remember_settings(cohort)
    return cohort.root


@pytest.mark.parametrize("option, ours, theirs", [
    (["--extension", "s1=none"], "--extension s1='none'", f"s1 the extension {EXTENDED}"),
    (["--extension", "s2=2026-12-17 23:59 UTC"], "--extension s2='2026-12-17 23:59:00 UTC'",
     "s2 no extension"),
    (["--due", "2026-12-20 23:59 UTC"], "--due '2026-12-20 23:59:00 UTC'", f"the due date {DUE}"),
    (["--no-due"], "--no-due (no due date)", f"the due date {DUE}"),
    (["--late-policy", "10%/day"], "--late-policy '10% of the maximum per started day late'",
     "the late policy 'no late penalty'"),
    (["--version-rule", "last_on_time"], "--version-rule last_on_time",
     "the version rule newest"),
])
def test_autograde_refuses_an_option_that_disagrees_with_cohorts_toml(cohort_root, option,
                                                                      ours, theirs):
    before = (cohort_root / "course.json").read_text()
    line = one_line_error(autograde(cohort_root, *option))
    config = cohort_root.parent.parent / "cohorts.toml"
    assert f"autograde {ours} disagrees with {config}, which gives cohort term {theirs}: " \
           f"that file holds the settings of record of {cohort_root}" in line, line
    assert f"edit it and run `cohort grade term`, or leave out {option[0]}" in line
    assert "(nothing was changed)" in line
    assert (cohort_root / "course.json").read_text() == before
    assert not (cohort_root / "autograded").exists()


@pytest.mark.slow  # grades one submission
def test_autograde_on_a_cohort_root_follows_cohorts_toml_as_cohort_grade_does(cohort_root):
    """The same value is no conflict; an edit of cohorts.toml is taken by `autograde` there
    too (course.json is its copy), so the two commands never undo each other."""
    config = cohort_root.parent.parent / "cohorts.toml"
    config.write_text(config.read_text().replace(f's1 = "{EXTENDED}"',
                                                 f's1 = "{EXTENDED}"\ns2 = "{EXTENDED}"'))
    done = autograde(cohort_root, "--extension", f"s1={EXTENDED}", "--student", "s1")
    assert done.returncode == 0, done.stderr
    assert f"extension for s2: due {EXTENDED}" in done.stdout
    kept = json.loads((cohort_root / "course.json").read_text())[VECTORS.name]
    assert kept["extensions"] == {"s1": EXTENDED, "s2": EXTENDED}
    assert kept[root_settings.RECORD] == str(config)
    # `cohort grade` then has nothing to take back
    assert workflow.remember_settings(get_cohort("term", config)) == []


@pytest.mark.slow  # grades one submission
def test_a_plain_root_keeps_course_json_as_its_record(tmp_path):
    root = tmp_path / "course"
    submit(root, "s1")
    done = autograde(root, VECTORS.name, "--assignments", str(BUNDLES), "--due", DUE,
                     "--version-rule", "last_on_time")
    assert done.returncode == 0, done.stderr
    assert "version rule of" in done.stdout
    assert root_settings.settings_of_record(root, VECTORS.name) is None
    assert root_settings.load(root, VECTORS.name).version_rule == "last_on_time"


def test_a_mistyped_id_in_cohorts_toml_is_refused_by_autograde_as_by_cohort_grade(cohort_root):
    config = cohort_root.parent.parent / "cohorts.toml"
    config.write_text(config.read_text().replace(f's1 = "{EXTENDED}"', f's11 = "{EXTENDED}"'))
    before = (cohort_root / "course.json").read_text()
    line = one_line_error(autograde(cohort_root))
    assert f"the extension of s11 in [cohorts.term.extensions] of {config}" in line
    assert "did you mean s1?" in line and "nothing was graded or changed" in line
    assert (cohort_root / "course.json").read_text() == before


def test_a_missing_cohorts_toml_of_record_is_one_line(cohort_root):
    config = cohort_root.parent.parent / "cohorts.toml"
    config.unlink()
    line = one_line_error(autograde(cohort_root))
    assert f"cannot read {config}" in line and "settings of record" in line
    assert f"remove \"{root_settings.RECORD}\" from {cohort_root / 'course.json'}" in line
