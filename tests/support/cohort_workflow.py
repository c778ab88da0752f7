"""What the cohort workflow's tests look at, and the package does not need."""

from __future__ import annotations

from autograder.integrations.cohorts.config import Cohort


def ship_check(cohort: Cohort) -> list[str]:
    """What a student of this cohort receives: the files the exchange hands out."""
    released = cohort.exchange / cohort.course_id / "outbound" / cohort.assignment
    return sorted(p.name for p in released.iterdir()) if released.is_dir() else []
