"""A cohort root's nbgrader_config.py, rewritten at every `cohort release`, always carries the
block that makes formgrader's Autograde button refuse (issue 27): no window in which it would
run a student's notebook outside the sandbox."""

from __future__ import annotations

from pathlib import Path

from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.views import formgrader
from tests.support.h2 import SPEC


def test_prepare_root_writes_the_refusing_block_every_time(tmp_path: Path):
    config = tmp_path / "cohorts.toml"
    config.write_text(f"""
[defaults]
courses_root = "{tmp_path / 'courses'}"
exchange = "{tmp_path / 'exchange'}"

[cohorts.fall-a]
due = "2030-01-01 00:00:00 UTC"
""")
    cohort = get_cohort("fall-a", config)
    for _ in range(2):  # a second release rewrites the config: the block is there again, once
        workflow.prepare_root(cohort)
        text = (cohort.root / "nbgrader_config.py").read_text()
        assert text.count(formgrader.BEGIN) == 1
        assert formgrader.block(SPEC.name) in text
        assert "c.CourseDirectory.course_id" in text  # the cohort's own settings are kept
