"""``autograder.base.stages``: a benchmark's view of where a run's time goes. Off unless
``AUTOGRADER_STAGES`` names a folder; on, each grader process writes its stage totals there,
and the outputs of the run are the same as without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base import stages
from autograder.base.course import RESULTS_JSON, Course
from autograder.spec import REPO
from tests.support.commands import autograde_ok
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit


def test_off_by_default_a_stage_is_a_context_that_does_nothing(tmp_path):
    assert os.environ.get(stages.ENV) is None and not stages.enabled()
    with stages.stage("anything"):
        pass
    stages.save("test")
    assert stages._TOTALS == {}


NESTED = """
import json, os, time
from autograder.base import stages
with stages.stage("outer"):
    time.sleep(0.05)
    for _ in range(3):
        with stages.stage("inner"):
            sum(i * i for i in range(200_000))  # CPU inside the inner stage
stages.save("parent")
pid = os.fork()
if pid == 0:
    with stages.stage("child's"):
        pass
    stages.save("child")
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_nested_stages_exclude_the_inner_ones_and_a_forked_process_starts_empty(tmp_path):
    env = {**os.environ, stages.ENV: str(tmp_path)}
    subprocess.run([sys.executable, "-c", NESTED], cwd=REPO, env=env, check=True, timeout=60)
    files = {json.loads(p.read_text())["role"]: json.loads(p.read_text())
             for p in tmp_path.glob("*.json")}
    assert set(files) == {"parent", "child"}
    parent, child = files["parent"]["stages"], files["child"]["stages"]
    assert (parent["outer"]["count"], parent["inner"]["count"]) == (1, 3)
    # The sleep is the outer stage's own wall time, the squares the inner stage's CPU.
    assert parent["outer"]["wall"] >= 0.05 > parent["outer"]["cpu"]
    assert parent["inner"]["cpu"] > parent["outer"]["cpu"]
    assert set(child) == {"child's"}  # nothing of its parent's
    assert files["parent"]["process"]["cpu"] >= parent["inner"]["cpu"]


@pytest.mark.slow
def test_a_measured_run_writes_each_processs_stages_and_the_same_outputs(tmp_path):
    roots = {}
    for measured in (False, True):
        root = roots[measured] = tmp_path / ("measured" if measured else "plain")
        submit(root, "s1", REFERENCE)
        submit(root, "s2", REFERENCE | {"normalize": WRONG_NORMALIZE})
    autograde_ok(roots[False], VECTORS.name, "--assignments", str(BUNDLES))
    folder = tmp_path / "stages"
    os.environ[stages.ENV] = str(folder)
    try:
        autograde_ok(roots[True], VECTORS.name, "--assignments", str(BUNDLES))
    finally:
        del os.environ[stages.ENV]
    written = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    roles = sorted(data["role"] for data in written)
    assert roles == ["coordinator", "grading process", "grading process"], roles
    summed: dict[str, int] = {}
    for data in written:
        for name, figures in data["stages"].items():
            summed[name] = summed.get(name, 0) + figures["count"]
    assert summed["write: results.json"] == summed["load the submission (read, parse, hash)"] == 2
    assert {f"checks: {part}" for part in VECTORS.part_points} <= set(summed)
    assert summed["publish: every output of the root (issue 37)"] == 1
    for student in ("s1", "s2"):  # every output alike, but for the seconds grading took
        folders = [Course(root, VECTORS.name).autograded(student) for root in roots.values()]
        results = [json.loads((folder / RESULTS_JSON).read_text()) for folder in folders]
        for result in results:
            assert result["extra_data"].pop("seconds") >= 0
        assert results[0] == results[1]
        for name in ("feedback.html", f"{VECTORS.name}.ipynb"):
            assert (folders[0] / name).read_bytes() == (folders[1] / name).read_bytes()
    assert roots[False].joinpath("grades.csv").read_text() == roots[True].joinpath(
        "grades.csv").read_text()


def test_the_benchmark_sums_the_files_and_names_the_sandbox_side(tmp_path: Path):
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks import stage_table
    finally:
        sys.path.remove(str(REPO))
    for pid, role, cpu in ((1, "coordinator", 2.0), (2, "grading process", 1.0)):
        (tmp_path / f"{pid}.json").write_text(json.dumps({
            "role": role, "pid": pid, "process": {"cpu": cpu, "wall": 3.0},
            "stages": {"checks: a": {"count": 2, "wall": 0.5, "cpu": 0.4}}}))
    table = stage_table.rows(stage_table.collect(tmp_path), tree_cpu=5.0)
    by_name = {row[0]: row for row in table}
    assert by_name["checks: a"] == ("checks: a", 4, 1.0, 0.8)
    assert by_name[stage_table.TRUSTED_REST][3] == pytest.approx(3.0 - 0.8)
    assert by_name[stage_table.SANDBOX_SIDE][3] == pytest.approx(5.0 - 3.0)
