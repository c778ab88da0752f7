"""A built Gradescope zip laid out as Gradescope's image lays it out, for tests that run it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


def unpack_like_gradescope(zip_path: Path, root: Path) -> Path:
    """/autograder/source = the zip, extracted with its permissions (as unzip does);
    run_autograder copied to /autograder, as Gradescope's image build does. Returns ``root``."""
    source = root / "source"
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            target = Path(archive.extract(info, source))
            target.chmod((info.external_attr >> 16) & 0o777 or 0o644)
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    return root


def run_upload(root: Path, student: str, title: str) -> dict:
    """Gradescope's run of one upload already in ``root/submission``: its metadata (the
    student's sid, the assignment's title), then the tree's run_autograder with this
    machine's environment and none of this checkout's code; the results.json it wrote."""
    (root / "results").mkdir(exist_ok=True)
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 1, "users": [{"sid": student, "email": f"{student}@example.org"}],
         "assignment": {"title": title}}), encoding="utf-8")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
           "HOME": str(root), "LANG": "C.UTF-8"}
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
