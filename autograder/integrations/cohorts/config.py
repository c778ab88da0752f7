"""Read ``cohorts.toml``: which cohorts exist, their course ids, due dates and roots."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autograder.batch.course import parse_time
from autograder.spec import REPO, SPEC

CONFIG = REPO / "cohorts.toml"
COURSE_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


class CohortConfigError(ValueError):
    """cohorts.toml is missing, malformed, or does not name the cohort asked for."""


@dataclass(frozen=True)
class Cohort:
    """One run of the assignment: its course id, due date and course root."""

    name: str
    course_id: str
    due: datetime | None
    root: Path
    exchange: Path
    assignment: str = SPEC.name
    lms_filename_regexp: str = ""


def load_cohorts(path: Path = CONFIG) -> dict[str, Cohort]:
    """Every declared cohort, by name."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CohortConfigError(f"cannot read {path}: {error}") from None
    defaults = data.get("defaults", {})
    base = Path(path).resolve().parent
    cohorts = {}
    for name, entry in data.get("cohorts", {}).items():
        merged = {**defaults, **entry}
        course_id = merged.get("course_id", name)
        if not COURSE_ID.match(course_id):
            raise CohortConfigError(f"cohort {name!r}: course id {course_id!r} has odd characters")
        try:
            due = parse_time(merged["due"]) if merged.get("due") else None
        except ValueError:
            raise CohortConfigError(f"cohort {name!r}: cannot read due date {merged['due']!r}") from None
        cohorts[name] = Cohort(
            name=name,
            course_id=course_id,
            due=due,
            root=(base / merged.get("courses_root", "courses") / name).resolve(),
            exchange=(base / merged.get("exchange", "/srv/nbgrader/exchange")).resolve(),
            assignment=merged.get("assignment", SPEC.name),
            lms_filename_regexp=merged.get("lms_filename_regexp", ""),
        )
    return cohorts


def get_cohort(name: str, path: Path = CONFIG) -> Cohort:
    cohorts = load_cohorts(path)
    if name not in cohorts:
        known = ", ".join(sorted(cohorts)) or "none"
        raise CohortConfigError(f"no cohort {name!r} in {path} (declared: {known})")
    return cohorts[name]
