"""The test session is a grader process: it starts as one (``autograder.startup``), so the
tests import what the grader's commands import, as fast.

Fixtures here are the ones tests of several folders use; a folder's own are in its
``conftest.py``."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import pytest

from autograder.assignments.exposure import SINGLE_USER
from autograder.startup import prepare_process

prepare_process()
# One of the tests makes Unix users (tests/end_to_end/test_shared_machine.py) while others
# run: every other test's commands see a machine of one user, as they were written for. The
# shared-machine check of the grader's install is tested with it unset
# (tests/assignments/test_exposure.py) and in that test.
os.environ[SINGLE_USER] = "1"


@pytest.fixture
def options():
    """Batch options for a few sample submissions: two grading processes, fast limits."""
    from tests.support.courses import fast_options

    return fast_options()


@pytest.fixture
def course_factory():
    """``course_factory(root, {student: variant})`` builds a course root of H2's samples."""
    from tests.support.courses import make_course

    return make_course


@pytest.fixture(scope="session")
def graded_sample_cohort(tmp_path_factory: pytest.TempPathFactory):
    """H2's sample cohort (one student of each kind, ``make demo``'s sixteen) graded with the
    real command line in cohort ``demo-2026`` against its due date, once per test run
    (``tests/support/cohort_scores.py``): a test reads it, or changes a copy of its own
    (``tests.support.shared_roots.copy_of``)."""
    from tests.support.cohort_scores import grade_sample_cohort
    from tests.support.shared_roots import made_once

    return made_once(tmp_path_factory, "graded-sample-cohort", grade_sample_cohort)


# ---------------------------------------------------------------- the order modules run in
# `make test` runs each module on one of two workers (pytest-xdist, --dist loadfile), handing
# the next module to whichever worker is nearly done: the run ends when the worker that got
# the last long module ends it. So the longest modules go first (by tests/durations.json,
# what each module took in a full run; a module it does not know counts as a middling one),
# and the short ones fill in at the end. `--store-durations` writes the file anew. Modules
# that share a costly session fixture go to one worker together (TOGETHER).

REPO = Path(__file__).resolve().parents[1]
DURATIONS = REPO / "tests" / "durations.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-durations", action="store_true",
                     help="write each test module's seconds (its tests' setup, call and "
                          f"teardown) into {DURATIONS.relative_to(REPO)}, the order of the "
                          "next runs: longest first")


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "loadscopereorder", False):
        config.option.loadscopereorder = False  # xdist's own order: most tests first


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


# Folders whose modules share a session fixture that takes a grading run to make (a session
# fixture is made once per worker): their modules are handed out together, to one worker.
TOGETHER = ("tests/sandbox/hostile/",)  # hostile_batch, controls_alone (its conftest)


def unit_of(nodeid: str) -> str:
    """What xdist hands out as one piece of work: a module, or its folder of ``TOGETHER``."""
    module = module_of(nodeid)
    return next((folder for folder in TOGETHER if module.startswith(folder)), module)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Together(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return Together(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
    middling = statistics.median(known.values()) if known else 0.0
    items.sort(key=lambda item: -known.get(module_of(item.nodeid), middling))  # stable


class _Durations:
    """Seconds per module, summed from the reports the session (xdist's controller) sees."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = module_of(report.nodeid)
        self.seconds[module] = self.seconds.get(module, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        kept = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
        kept.update({module: round(seconds, 1) for module, seconds in self.seconds.items()})
        kept = {module: seconds for module, seconds in kept.items() if (REPO / module).exists()}
        DURATIONS.write_text(json.dumps(dict(sorted(kept.items())), indent=1) + "\n",
                             encoding="utf-8")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if config.getoption("store_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Durations(), "module-durations")


# ---------------------------------------------------------------- what the skips need


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The skipped tests grouped by reason, each with what to run to have them run
    (``tests/support/skips.py``)."""
    from tests.support.skips import summary_lines

    lines = summary_lines(terminalreporter.stats.get("skipped", []))
    if lines:
        terminalreporter.section("skipped: what each needs", sep="-")
        for line in lines:
            terminalreporter.write_line(line)
