"""What a batch is asked to do, and its sandbox started first: light enough to import before
anything heavy, so that ``autograde`` launches the zygote within its first tenth of a second."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from autograder.batch.cluster.choice import ClusterChoice
from autograder.results.late_policy import LatePolicy
from autograder.sandbox.limits import Limits
from autograder.sandbox.zygote import Zygote

if TYPE_CHECKING:
    from autograder.assignments import Assignment


@dataclass(frozen=True)
class BatchOptions:
    """How to grade; the defaults suit a TA's laptop or a 2-core server."""

    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    force: bool = False
    limits: Limits = field(default_factory=Limits)
    cohort: str | None = None
    due: datetime | None = None  # submissions after it are late (penalised by late_policy)
    # Per-student due dates that replace ``due`` (an extension regrades only that student).
    extensions: dict[str, datetime] = field(default_factory=dict)
    late_policy: LatePolicy = field(default_factory=lambda: LatePolicy())
    # Which kept version counts (autograder.batch.version_rule): "newest" (today's),
    # "last_on_time" or "best_after_penalty".
    version_rule: str = "newest"

    def due_for(self, student: str) -> datetime | None:
        """The due date that applies to ``student``: an extension's, or the course's; None
        while the course has none (``--no-due``: lateness is judged for nobody, extended
        students included, until a due date is given again)."""
        if self.due is None:
            return None
        return self.extensions.get(student, self.due)
    isolate: bool = True
    allow_weaker: bool = False  # grade even where full isolation cannot be applied (recorded)
    progress: bool = True
    write_gradebook: bool = True
    cluster: ClusterChoice | None = None  # None: the local pool; else a Dask cluster (--cluster)


def launch_sandbox(options: BatchOptions, assignment: Assignment) -> list[Zygote] | None:
    """Start the zygote (``options.jobs`` channels, importing ``assignment``'s preloads)
    before the grader's own imports and the assignment's checks, so that both warm up side
    by side: the zygote's imports are the longest part of a batch's start. ``grade_course(..., sandbox=...)`` then owns it (and discards
    what it does not use); a caller that does not get that far calls ``discard`` on it.
    None for a batch that goes to a cluster (its workers start their own)."""
    if options.cluster is not None:
        return None
    return Zygote.launch(channels=max(1, options.jobs), preload=assignment.preload,
                         hide=assignment.private_folders)
