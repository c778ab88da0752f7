"""This bundle as the engine sees it, for the bundle's own modules: they read H2's facts
(points, evidence sections, files) from its spec, never from a copy.

The bundle is opened from the folder this file is in, so a copy of the bundle in an
instructor's folder reads its own ``assignment.toml``."""

from __future__ import annotations

from pathlib import Path

from autograder.assignments.bundle import Assignment, open_bundle

_ROOT = Path(__file__).resolve().parent
H2: Assignment = open_bundle(
    _ROOT, package=__package__,
    origin="package" if __package__.startswith("autograder.") else str(_ROOT.parent))
