"""Assertions on command-line runs: what a user sees when the grader refuses."""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Sequence


def one_line_error(done: subprocess.CompletedProcess, code: int = 2) -> str:
    """The single stderr line of a refused command (and nothing that looks like a crash)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{done.stderr}"
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return lines[0]


def parse_refusal(argv: Sequence[str]) -> str:
    """What the real command line says when it refuses to parse ``argv`` ("" when it parses:
    nothing runs; ``--help`` counts as parsing)."""
    from autograder.cli import build_parser

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            build_parser(list(argv)).parse_args(list(argv))
        except SystemExit as stop:
            return "" if stop.code == 0 else out.getvalue() or f"exit {stop.code}"
    return ""
