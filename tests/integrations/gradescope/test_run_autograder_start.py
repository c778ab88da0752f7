"""``run-autograder`` launches the zygote before it imports the grader, as ``autograde``
does: the zygote's imports (the assignment's ``preload``: numpy here, torch for H2) and the
grader's then happen at once, and Gradescope's student waits for the longer of the two, not
their sum. The order is the engine's: the small ``vectors`` test bundle is the one named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from autograder.spec import REPO
from tests.bundles import students

SECOND = students.assignment()  # vectors: preloads numpy

PROBE = """
import json, sys
from autograder.integrations.gradescope import run
heavy = ("numpy", "torch", "nbformat", "pytest", "jsonschema", "autograder.grading.grade_one")
seen = {}
class Launch:
    @staticmethod
    def launch(preload, hide):
        seen["loaded at launch"] = [name for name in heavy if name in sys.modules]
        seen["preload"] = list(preload)
        raise SystemExit(7)
run.Zygote = Launch
from autograder.cli import main
try:
    main(["run-autograder", ASSIGNMENT, "--assignments", BUNDLES, "--submission", SUBMISSION,
          "--results", RESULTS])
except SystemExit as stopped:
    seen["exit"] = stopped.code
print(json.dumps(seen))
"""


def test_the_zygote_is_launched_before_the_grader_is_imported(tmp_path: Path):
    folder = students.write_submission(tmp_path / "submitted" / "s1" / SECOND.name)
    probe = (PROBE.replace("ASSIGNMENT", repr(SECOND.name))
             .replace("BUNDLES", repr(str(students.BUNDLES)))
             .replace("SUBMISSION", repr(str(folder)))
             .replace("RESULTS", repr(str(tmp_path / "results.json"))))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["exit"] == 7, done.stderr  # reached the launch, with valid paths
    assert seen["preload"] == list(SECOND.preload) == ["numpy"]
    assert seen["loaded at launch"] == []
