"""Fixtures: one batch of every hostile submission plus the controls, and the controls
graded alone. The table and the builders are in ``hostile_cases``."""

from __future__ import annotations

import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.batch.engine import grade_course
from tests.sandbox.hostile.hostile_cases import (
    CONTROLS,
    HOSTILE,
    NOTEBOOK,
    REPO,
    SITE_PACKAGES,
    TOKEN_ENV,
    VICTIM,
    Context,
    HostileBatch,
    all_students,
    marker_processes,
    new_course_root,
    options,
)
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name


@pytest.fixture(scope="session")
def sibling_course() -> Iterator[Path]:
    """Another section's course root where TAs usually keep them: world-readable."""
    base = Path(tempfile.mkdtemp(prefix="h2-hostile-sibling-"))
    base.chmod(0o755)
    new_course_root(base / "section-b")
    for path in [base, *base.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield base / "section-b"
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def hostile_batch(
    tmp_path_factory: pytest.TempPathFactory, sibling_course: Path
) -> Iterator[HostileBatch]:
    root = new_course_root(tmp_path_factory.mktemp("hostile") / "course")
    token = uuid.uuid4().hex
    ctx = Context(root, VICTIM, f"hx{token[:8]}", sibling_course)
    for student, build in all_students().items():
        build(root / "submitted" / student / ASSIGNMENT, student, ctx)
    (root / "SENTINEL").write_text("unchanged")
    attacked = {
        "SENTINEL": root / "SENTINEL",
        "victim notebook": root / "submitted" / VICTIM / ASSIGNMENT / NOTEBOOK,
    }
    before = {name: path.read_bytes() for name, path in attacked.items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TOKEN_ENV, token)
        summary = grade_course(Course(root, ASSIGNMENT), options=options())
    leftovers = marker_processes(token, ctx.marker)
    yield HostileBatch(root, ctx, summary, before, leftovers, token)
    for path in (
        REPO / "autograder" / "bundles" / "h2_attention" / "checks" / f"zz_{ctx.marker}.txt",
        SITE_PACKAGES / f"zz_{ctx.marker}.txt",
    ):
        path.unlink(missing_ok=True)  # only exists if the sandbox failed (the test says so)


@pytest.fixture(scope="session")
def controls_alone(tmp_path_factory: pytest.TempPathFactory, sibling_course: Path):
    """Each control graded alone in a fresh course root: a batch of one (one grading
    process each; the three batches run at the same time, to save time)."""
    results = {}
    errors: list[BaseException] = []

    def grade_alone(student: str) -> None:
        try:
            root = new_course_root(tmp_path_factory.mktemp(f"alone-{student}") / "course")
            ctx = Context(root, VICTIM, "unused", sibling_course)
            CONTROLS[student](root / "submitted" / student / ASSIGNMENT, student, ctx)
            summary = grade_course(Course(root, ASSIGNMENT), options=options(jobs=1))
            results[student] = summary.results[0]
        except BaseException as error:  # noqa: BLE001 - re-raised below
            errors.append(error)

    threads = [threading.Thread(target=grade_alone, args=(s,)) for s in CONTROLS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "hostile" in metafunc.fixturenames:
        metafunc.parametrize(
            "hostile",
            [
                pytest.param(
                    case,
                    id=case.name,
                    marks=[pytest.mark.xfail(strict=True, reason=case.bug)] if case.bug else [],
                )
                for case in HOSTILE
            ],
        )
