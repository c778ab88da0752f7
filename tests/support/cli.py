"""Assertions on command-line runs: what a user sees when the grader refuses."""

from __future__ import annotations

import subprocess


def one_line_error(done: subprocess.CompletedProcess, code: int = 2) -> str:
    """The single stderr line of a refused command (and nothing that looks like a crash)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{done.stderr}"
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return lines[0]
