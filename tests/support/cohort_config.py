"""cohorts.toml for the tests that run a cohort of the ``vectors`` bundle through the real
commands: one helper instead of a copy in each module."""

from __future__ import annotations

from pathlib import Path

from tests.support.vectors import VECTORS


def term_config(tmp: Path, due: str, *, defaults: str = "", cohort: str = "",
                path: Path | None = None, bundles: Path | None = None) -> Path:
    """``tmp/cohorts.toml`` (or ``path``): cohort ``term`` of ``vectors``, due ``due``, its
    course roots, exchange and folder of bundles (or ``bundles``) under ``tmp``; ``defaults`` and ``cohort``
    are more TOML lines for ``[defaults]`` and after ``[cohorts.term]`` (its own tables
    too)."""
    path = path or tmp / "cohorts.toml"
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
assignments = "{bundles or tmp / 'bundles'}"
assignment = "{VECTORS.name}"
{defaults}
[cohorts.term]
due = "{due}"
{cohort}
""", encoding="utf-8")
    return path
