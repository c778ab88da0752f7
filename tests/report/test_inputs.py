"""``publish`` rebuilds the report only when what it is built from changed
(``autograder.report.inputs``); when nothing did, the page stays as it is and counts as
current."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder.base.course import Course
from autograder.publish.status import outputs
from autograder.publish.views import publish
from autograder.report import build, write_report
from autograder.report.inputs import INPUTS_FILE
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of

pytestmark = pytest.mark.slow  # a graded root


@pytest.fixture
def root(graded_sample_cohort, tmp_path):
    """A graded root with a report, published once (so its inputs are noted)."""
    root = copy_of(graded_sample_cohort, tmp_path / "course")
    if not (root / "report" / "report.html").is_file():
        write_report(root, SPEC)
    publish(Course(root, SPEC.name), SPEC, [])
    return root


@pytest.fixture
def builds(monkeypatch):
    """Every report ``publish`` builds from now on."""
    built = []
    real = build.build_report

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "build_report", counting)
    return built


def report_current(root) -> bool:
    course = Course(root, SPEC.name)
    (shown,) = [o for o in outputs(course, SPEC) if o.name == "report/report.html"]
    return shown.current


def test_nothing_changed_the_page_is_kept_and_counts_as_current(root, builds):
    page = root / "report" / "report.html"
    before = page.read_bytes()
    os.utime(page, (0, 0))  # older than every result: `status` would call it stale
    done = publish(Course(root, SPEC.name), SPEC, [])
    assert builds == [] and page.read_bytes() == before
    assert "report/report.html" in done.views and report_current(root)


def test_a_changed_result_rebuilds_it(root, builds):
    student = sorted((root / "autograded").iterdir())[0].name
    scores = root / "report" / "scores.csv"
    before = scores.read_text()
    subprocess.run([sys.executable, "-m", "autograder", "review", "set", student, "limitation",
                    "1", "--note", "test", "--root", str(root)], check=True,
                   capture_output=True, timeout=120)
    # the command published the report (in a process of its own): rebuilt, with the decision
    assert scores.read_text() != before and report_current(root)
    publish(Course(root, SPEC.name), SPEC, [])
    assert builds == []  # and the next publish finds nothing new


def test_a_rewritten_notebook_rebuilds_it(root, builds):
    notebook = next((root / "submitted").glob(f"*/{SPEC.name}/{SPEC.notebook}"))
    notebook.write_bytes(notebook.read_bytes())  # the same bytes, written again
    publish(Course(root, SPEC.name), SPEC, [])
    assert len(builds) == 1


def test_a_report_written_by_the_report_command_is_rebuilt_by_the_next_publish(root, builds):
    """`report` may be run with another cohort or folder: its page is not what the noted
    inputs built, so it forgets them."""
    write_report(root, SPEC, cohort="another")
    assert not (root / "report" / INPUTS_FILE).exists()
    builds.clear()  # the one write_report built
    publish(Course(root, SPEC.name), SPEC, [])
    assert len(builds) == 1 and (root / "report" / INPUTS_FILE).is_file()
