"""Shared fixtures: the reference-built evidence, fresh copies of it, and file writers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import COHORT, GOOD_LIMITATION, STUDENT, dump


@pytest.fixture(scope="session")
def reference_evidence() -> dict:
    """Evidence built by the reference solution for STUDENT in COHORT (built once)."""
    import solutions
    from solutions.evidence import build_evidence

    return build_evidence(vars(solutions), STUDENT, GOOD_LIMITATION, cohort=COHORT)


@pytest.fixture
def evidence(reference_evidence: dict) -> dict:
    """A fresh deep copy (via JSON, so no list is shared between sections)."""
    return json.loads(json.dumps(reference_evidence))


@pytest.fixture
def write(tmp_path: Path):
    """write(name, dict | bytes | str) -> path of a new file in tmp_path."""

    def _write(name: str, content: object) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(dump(content))
        return path

    return _write
