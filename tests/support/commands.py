"""Running a program a test needs to succeed, with its output in the failure message."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_ok(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    """``command``'s stdout; a failure shows the command and the end of its output."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{(done.stdout + done.stderr)[-4000:]}"
    return done.stdout
