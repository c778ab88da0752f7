"""Formgrader itself (nbgrader 0.9.6's Jupyter server extension, through its HTTP API) on a course
root we graded: every submission shows as autograded with our score and timestamp, the
manual-grading list is not empty, the flagged student's grading page opens, a manual score
entered there is the grade of record after `autograde --force` (results.json, grades.csv,
`nbgrader export`) and stays, and the Autograde button refuses, touching nothing (issue 27)."""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.batch.engine import BatchOptions, grade_course
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.results.result import load
from autograder.sandbox.limits import Limits
from autograder.views import graded_notebook
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

UNJUDGED, CORRECT = "s01-unjudged", "s02-correct"
SUBMITTED_AT = datetime(2026, 12, 1, 10, 0, 0, 123000, tzinfo=UTC)
OPTIONS = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3,
                                                              notebook_timeout=30))
TOKEN = "formgrader-test-token"


class Formgrader:
    """A Jupyter server started from the course root, as a TA starts it; its JSON API."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, str]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"token {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def json(self, method: str, path: str, body: dict | None = None) -> object:
        status, text = self.request(method, path, body)
        assert status == 200, (method, path, status, text[:2000])
        return json.loads(text)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def course(tmp_path: Path) -> Course:
    root = tmp_path / "course"
    by_name = {variant.name: variant for variant in VARIANTS}
    build_submission(root, UNJUDGED, by_name["unjudged_limitation"], submitted_at=SUBMITTED_AT)
    build_submission(root, CORRECT, by_name["correct"])  # no timestamp.txt
    course = Course(root, SPEC.name)
    grade_course(course, options=OPTIONS)
    return course


@pytest.fixture
def formgrader(course: Course, tmp_path: Path) -> Iterator[Formgrader]:
    port = _free_port()
    jupyter = Path(sys.executable).parent / "jupyter"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen(
        [str(jupyter), "server", f"--ServerApp.token={TOKEN}", "--ip=127.0.0.1",
         f"--port={port}", "--no-browser", "--allow-root"],
        cwd=course.root, env=env, stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "server.log").open("w"))
    api = Formgrader(port)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if api.request("GET", "/formgrader/api/status")[0] == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "formgrader did not start in 90 s"
            time.sleep(0.5)
        yield api
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _autograde(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "autograde", SPEC.name, "--root",
                           str(root), "--jobs", "2", *args], capture_output=True, text=True,
                          timeout=600)


def _grades_csv_total(course: Course, student: str) -> float:
    with course.grades_csv().open(encoding="utf-8") as handle:
        return float({row["student"]: row for row in csv.DictReader(handle)}[student]["total"])


def _nbgrader_export(root: Path) -> dict[str, float]:
    out = root / "export.csv"
    subprocess.run([*nbgrader_command(), "export", "--to", str(out),
                    "--log-level=ERROR"], cwd=root, check=True, capture_output=True, timeout=120)
    with out.open(encoding="utf-8") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


def _files(course: Course, student: str) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in course.autograded(student).iterdir()}


def test_formgrader_shows_opens_and_records_our_grades_and_its_autograde_refuses(course,
                                                                                  formgrader):
    saved = {student: load(course.autograded(student) / RESULTS_JSON)
             for student in (UNJUDGED, CORRECT)}

    submissions = formgrader.json("GET", f"/formgrader/api/submissions/{SPEC.name}")
    shown = {row["student"]: row for row in submissions}
    assert set(shown) == {UNJUDGED, CORRECT}
    for student, result in saved.items():
        assert shown[student]["autograded"] is True, shown[student]
        assert shown[student]["score"] == result.score
    assert shown[UNJUDGED]["timestamp"] == "2026-12-01T10:00:00.123000"
    assert shown[UNJUDGED]["needs_manual_grade"] and not shown[CORRECT]["needs_manual_grade"]

    notebooks = formgrader.json("GET", f"/formgrader/api/submitted_notebooks/{SPEC.name}/"
                                f"{SPEC.name}")
    assert {row["student"] for row in notebooks} == {UNJUDGED, CORRECT}
    [flagged] = [row for row in notebooks if row["student"] == UNJUDGED]
    status, page = formgrader.request("GET", f"/formgrader/submissions/{flagged['id']}/")
    assert status == 200, page[-2000:]
    assert "autograder (sandboxed): 4/8 for limitation" in page
    assert "out of its depth" in page  # the text a person must judge

    grades = formgrader.json("GET", f"/formgrader/api/grades?submission_id={flagged['id']}")
    [limitation] = [grade for grade in grades if grade["name"] == SPEC.part("limitation").grade_cell]
    assert limitation["auto_score"] == 4 and limitation["needs_manual_grade"]
    entered = formgrader.json("PUT", f"/formgrader/api/grade/{limitation['id']}",
                              {"manual_score": 7})
    assert entered["manual_score"] == 7

    # The Autograde button: nbgrader's autograde would run the student's code unsandboxed.
    before = _files(course, UNJUDGED)
    answer = formgrader.json("POST", f"/formgrader/api/submission/{SPEC.name}/{UNJUDGED}/"
                             "autograde")
    assert answer["success"] is False
    assert "sandbox" in answer["log"] and f"autograde {SPEC.name}" in answer["log"]
    assert f"--student {UNJUDGED}" in answer["log"]
    assert _files(course, UNJUDGED) == before  # results.json, feedback.html, notebook intact

    want = saved[UNJUDGED].score - 4 + 7
    done = _autograde(course.root, "--force")
    assert done.returncode == 0, done.stderr[-3000:]
    for run in ("after --force", "after a plain run"):
        result = load(course.autograded(UNJUDGED) / RESULTS_JSON)
        assert result.part("limitation").points == 7 and result.score == want, run
        assert _grades_csv_total(course, UNJUDGED) == want, run
        assert _nbgrader_export(course.root)[UNJUDGED] == want, run
        shown = {row["student"]: row for row in formgrader.json(
            "GET", f"/formgrader/api/submissions/{SPEC.name}")}
        assert shown[UNJUDGED]["autograded"] and shown[UNJUDGED]["score"] == want, run
        assert not shown[UNJUDGED]["needs_manual_grade"], run
        done = _autograde(course.root)
        assert done.returncode == 0, done.stderr[-3000:]
    page = (course.autograded(UNJUDGED) / FEEDBACK_HTML).read_text(encoding="utf-8")
    assert "scored 7 by formgrader" in page
    assert graded_notebook.path(course, UNJUDGED).is_file()


def _feedback_tree(course: Course) -> dict[str, bytes]:
    folder = course.root / "feedback"
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_formgraders_generate_feedback_refuses_and_leaves_the_graders_pages(course, formgrader):
    """Issue 51: Generate Feedback replaced every page in feedback/ with nbgrader's rendering
    (no diagnoses, carried-forward explanations or version notes), and Release Feedback would
    send those."""
    from autograder.views.nbgrader_feedback import write_feedback

    assert len(write_feedback(course, SPEC)) == 2  # `cohort feedback`, as a TA runs it
    before = _feedback_tree(course)
    for path in (f"/formgrader/api/assignment/{SPEC.name}/generate_feedback",
                 f"/formgrader/api/assignment/{SPEC.name}/{UNJUDGED}/generate_feedback"):
        answer = formgrader.json("POST", path)
        assert answer["success"] is False, (path, answer)
        assert "generate_feedback is turned off" in answer["log"], answer["log"]
        assert "python -m autograder cohort feedback" in answer["log"]
        assert f"python -m autograder export --root {course.root}" in answer["log"]
        assert _feedback_tree(course) == before, path
