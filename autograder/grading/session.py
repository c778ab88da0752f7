"""A trusted grading process's life cycle: its warm zygote, its sandbox user, its warm-up.

``GradingSession.start(assignment)`` starts a zygote that preloads the assignment's
libraries while this process imports and collects what grading the assignment needs
(``warm_up_checks``); ``grade_submission`` (``autograder.grading.grade_one``) then grades
submission after submission with it.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograder.grading.cells import release_locked_cells
from autograder.grading.runner import collect_checks
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote

if TYPE_CHECKING:
    from autograder.assignments import Assignment


@dataclass
class GradingSession:
    """What one trusted grading process keeps between submissions of ``assignment``: a
    warm zygote and a sandbox user id."""

    zygote: Zygote
    lease: UidLease
    limits: Limits = field(default_factory=Limits)
    isolate: bool = True
    allow_weaker: bool = False  # the TA's explicit consent to less than full isolation
    assignment: Assignment = field(kw_only=True)

    @classmethod
    def start(
        cls,
        assignment: Assignment,
        limits: Limits | None = None,
        *,
        isolate: bool = True,
        allow_weaker: bool = False,
        launched: Zygote | None = None,
    ) -> GradingSession:
        """Start a zygote (workers see only the system and Python; see
        autograder.untrusted.isolation), or take ``launched`` (started for ``assignment``
        before the grader was imported), and warm this process up for ``assignment``."""
        (zygote,) = [launched] if launched is not None else Zygote.launch(
            preload=assignment.preload, hide=assignment.private_folders)
        warm_up_checks(assignment)  # imports and collects while the zygote starts
        return cls(zygote.wait_ready(), UidLease.acquire(),
                   (limits or Limits()).for_preload(assignment.preload), isolate,
                   allow_weaker, assignment=assignment)

    def close(self) -> None:
        self.zygote.close()
        self.lease.release()


_WARM = False  # warm_up_checks has imported, collected and frozen in this process


def warm_up_checks(assignment: Assignment) -> None:
    """Import and collect what the first ``run_checks`` of ``assignment`` would, so no
    submission pays for it (and processes forked afterwards start warm).

    Without cyclic garbage collection while importing (torch makes hundreds of thousands of
    long-lived objects: collecting them over and over cost about 0.3 s of the 1.4 s), and
    everything alive is then frozen (``gc.freeze``): no later collection, here or in a
    grading process forked from here, traverses those objects again, or copies the pages
    that hold them. Only the first call in a process does so: a long-lived process (a test
    session, a Dask worker) starting session after session freezes nothing more."""
    global _WARM
    if _WARM:
        _import_and_collect(assignment)  # cached: nothing is imported or collected again
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        _import_and_collect(assignment)
        _WARM = True
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _import_and_collect(assignment: Assignment) -> None:
    import jinja2  # noqa: F401  (the feedback page's: imported once, before the fork)

    if "torch" in assignment.preload:
        # torch (1-2 s): only for an assignment that preloads it
        import torch

        torch.set_num_threads(1)  # one grading process per core; no thread pool to fork
    assignment.reference  # noqa: B018  (imported once, before the grading processes fork)
    collect_checks(assignment)
    release_locked_cells(assignment)
    if assignment.evidence is not None:
        assignment.evidence.warm_up()
    assignment.grading_key  # noqa: B018  (hashed once, before the grading processes fork)
