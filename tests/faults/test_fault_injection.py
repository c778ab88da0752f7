"""Issue 51's acceptance test: a course root changes all or nothing. Each command is hurt (a
kill -9 at a random moment or right after a chosen write, SIGTERM and SIGHUP, a full disk, an
immutable output, a corrupted record); the next command then runs (the same again, or
``export``), and every output must agree with an uninterrupted run's (with ``export``: after
the whole command or without it), with ``status`` calling current exactly the outputs that
do. A few trials of each fault (tests/support/faults.py); scripts/fault_injection.py runs
many and prints the table.

``FAILED_BEFORE`` names the trials that failed before the journal (autograder/results/
journal.py) and the signal handling, and why: each passes now. A kill after a write uses the
journal's test hook (``AUTOGRADER_FAULT_AFTER_WRITE``); a command that ends unhurt with it
set skips, saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import faults
from tests.support.skips import AS_ROOT, needs

pytestmark = pytest.mark.slow

SUITE = faults.plan(
    random_kills=1, seed=9,
    write_kinds={"autograde": ["*/feedback.html:1"], "review set": ["*/results.json:1"],
                 "export": ["canvas-grades.csv:1"]},
    signalled=("autograde",), signal_trials=1,
    disk={"autograde": 1},
    once={"immutable grades.csv": ("review set",), "truncated results.json": ("export",),
          "garbage in decisions.json": ("autograde",)},
    then_export={"review set": ["decisions.json:1"]},
)
"""A few trials of each fault: about four minutes on two cores shared with other runs (load
8); scripts/fault_injection.py runs many more."""

ISSUE = "issue 51"
FAILED_BEFORE = {
    "autograde-SIGTERM-0": f"{ISSUE} item 10: SIGTERM stops autograde without a word",
    "autograde-SIGHUP-0": f"{ISSUE} item 10: SIGHUP stops autograde without a word",
    "autograde-full-disk-0": f"{ISSUE} item 11: a full disk is a traceback, no path",
    "review_set-immutable-grades.csv": f"{ISSUE} item 11: an immutable grades.csv is a "
                                       "PermissionError traceback, the decision half-applied",
    "export-truncated-results.json": f"{ISSUE} item 12: nothing names a truncated results.json",
    "autograde-garbage-in-decisions.json": f"{ISSUE}: an unreadable decisions.json is a "
                                           "traceback from autograde",
    "review_set-then-export-decisions.json:1": f"{ISSUE} items 3 and 9: a review set killed "
                                               "after decisions.json leaves the old total in "
                                               "feedback.html and the gradebook after export, "
                                               "and status calls them current",
}
"""The trials that failed at f493dfc, before issue 51, and why (its numbered items)."""


def marked(planned: faults.Planned) -> object:
    return pytest.param(planned, id=planned.id)


class References(dict):
    """Each command's uninterrupted run, made the first time a trial of it asks."""

    def __init__(self, scenarios: dict[str, faults.Scenario], where: Path) -> None:
        super().__init__()
        self.scenarios, self.where = scenarios, where

    def __missing__(self, command: str) -> faults.Reference:
        made = faults.reference(self.scenarios[command], self.where / command.replace(" ", "-"))
        self[command] = made
        return made


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> dict[str, faults.Scenario]:
    return faults.make_scenarios(tmp_path_factory.mktemp("fault-scenarios"))


@pytest.fixture(scope="module")
def references(scenarios, tmp_path_factory: pytest.TempPathFactory) -> References:
    return References(scenarios, tmp_path_factory.mktemp("fault-references"))


@pytest.mark.parametrize("command", faults.COMMANDS)
def test_an_uninterrupted_run_leaves_every_output_current(references, command):
    """The yardstick: without a fault, ``status`` calls every output current (else a STALE
    after a fault would say nothing about the fault)."""
    assert references[command].status and all(references[command].status.values()), (
        references[command].status)


@pytest.mark.parametrize("planned", [marked(planned) for planned in SUITE])
def test_a_hurt_command_leaves_the_root_as_an_uninterrupted_run(planned, scenarios, references,
                                                                 tmp_path):
    if planned.kind == "full disk" and (why := faults.can_mount()):
        pytest.skip(needs(f"a full disk needs a tmpfs mounted ({why})", AS_ROOT))
    trial = planned.hurt(scenarios[planned.command], tmp_path, references[planned.command])
    if trial.note.startswith(faults.HOOK_MISSING):
        assert not trial.problems, "\n".join(trial.problems)  # an unhurt run agrees, at least
        pytest.skip(faults.HOOK_MISSING)
    if trial.note.startswith("chattr +i not supported"):
        pytest.skip(needs(trial.note, AS_ROOT))
    assert not trial.problems, f"{planned.id} ({trial.note}):\n" + "\n".join(trial.problems)
    if not trial.landed:  # ended before the fault came: it agrees, and tells nothing more
        pytest.skip(f"the fault came after the command ended ({trial.note})")
    regressed = f" (as before issue 51: {FAILED_BEFORE[planned.id]})" \
        if planned.id in FAILED_BEFORE else ""
    assert not trial.problems, f"{planned.id}{regressed} ({trial.note}):\n" + "\n".join(
        trial.problems)
