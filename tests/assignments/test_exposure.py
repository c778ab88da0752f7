"""The grader's install on a shared machine (issue 50, item 2): a bundle whose hidden checks,
reference or source notebook other users can read is named once, with the fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.assignments import exposure
from autograder.assignments.bundle import open_bundle
from tests.support.bundle_copies import copy_bundle
from tests.support.vectors import submit


@pytest.fixture
def bundles() -> Iterator[Path]:
    """A folder of bundles others can pass through, holding a copy of ``vectors`` as a clone
    under the usual umask leaves it (folders 0755, files 0644)."""
    folder = Path(tempfile.mkdtemp(prefix="exposure-test-", dir="/tmp"))
    copy_bundle("vectors", folder, "vectors")
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_the_hidden_material_others_can_read_is_named_with_the_fix(bundles: Path) -> None:
    bundle = open_bundle(bundles / "vectors", origin=str(bundles))
    found = exposure.exposed(bundle)
    assert bundles / "vectors" / "reference.py" in found
    assert any(path.parent.name == "checks" for path in found)
    line = exposure.exposure_line(bundle)
    assert "hidden checks" in line and "reference solution" in line
    assert f"chmod -R o-rwx {bundles / 'vectors'}" in line
    (bundles / "vectors").chmod(0o750)  # the fix: nobody else passes through
    assert exposure.exposed(bundle) == [] and exposure.exposure_line(bundle) == ""


def test_a_file_closed_itself_is_not_exposed(bundles: Path) -> None:
    bundle = open_bundle(bundles / "vectors", origin=str(bundles))
    for path in exposure.hidden_files(bundle):
        path.chmod(0o600)
    assert exposure.exposed(bundle) == []


def test_a_grading_command_says_it_once_on_a_shared_machine(bundles: Path, tmp_path: Path
                                                            ) -> None:
    root = tmp_path / "root"
    submit(root, "s1")
    submit(root, "s2")
    command = [sys.executable, "-m", "autograder", "autograde", "vectors", "--root", str(root),
               "--assignments", str(bundles), "--no-progress"]
    shared = {**os.environ, exposure.SINGLE_USER: "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=shared, check=False,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "vectors's hidden checks" in warnings[0], done.stderr
    alone = {**os.environ, exposure.SINGLE_USER: "1"}
    done = subprocess.run([*command, "--force"], capture_output=True, text=True, env=alone,
                          check=False, timeout=300)
    assert done.returncode == 0 and "warning:" not in done.stderr, done.stderr


def test_other_login_users_make_a_shared_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(exposure.SINGLE_USER, raising=False)
    assert exposure.shared_machine() == bool(exposure.other_users())
    monkeypatch.setenv(exposure.SINGLE_USER, "0")
    assert exposure.shared_machine()
    monkeypatch.setenv(exposure.SINGLE_USER, "1")
    assert not exposure.shared_machine()
