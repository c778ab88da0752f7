"""A submission travels to a Dask worker as plain data and reads there as it does here:
the same cells, notes, fatal reason and content hash, even when it holds links, special
files or more bytes than a task carries."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

import pytest

from autograder.batch.cluster.transfer import FILE, LINK, SIZE_ONLY, pack, unpack
from autograder.bundles.h2_attention.evidence.verify import verify_evidence
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.grading.submission import content_hash, load_submission
from tests.support.h2 import SPEC

BY_NAME = {variant.name: variant for variant in VARIANTS}


def read_back(folder: Path, copy_root: Path, budget: int | None = None):
    entries, partial = pack(folder, SPEC) if budget is None else pack(folder, SPEC, budget)
    copy = copy_root / "submitted" / folder.parent.name / folder.name
    copy.parent.mkdir(parents=True)
    unpack(entries, copy)
    return entries, partial, copy


def facts(folder: Path, student: str) -> dict:
    submission = load_submission(folder, student, assignment=SPEC)
    evidence = verify_evidence(submission.evidence or folder / SPEC.evidence_file,
                               student_id=student)
    data = asdict(submission)
    for path_field in ("folder", "notebook", "evidence"):
        data[path_field] = Path(data[path_field]).name if data[path_field] else None
    return {"submission": data, "evidence": evidence.status,
            "findings": [(f.code, f.message) for f in evidence.findings]}


@pytest.mark.parametrize("variant", ["correct", "broken_notebook", "no_evidence"])
def test_a_sample_submission_reads_the_same(tmp_path, variant):
    folder = build_submission(tmp_path / "here", "s1", BY_NAME[variant])
    (folder / "timestamp.txt").write_text("2026-12-14 10:00:00 UTC")
    entries, partial, copy = read_back(folder, tmp_path / "there")
    assert not partial and {kind for _, kind, _ in entries} == {FILE}
    assert facts(copy, "s1") == facts(folder, "s1")
    assert content_hash(copy) == content_hash(folder)


def test_links_special_files_and_folders_read_the_same(tmp_path):
    folder = build_submission(tmp_path / "here", "s1", BY_NAME["correct"])
    evidence = folder / SPEC.evidence_file
    evidence.rename(folder / "real.json")
    evidence.symlink_to("/etc/passwd")  # the grader refuses a link unread
    (folder / "other.ipynb").symlink_to(folder / SPEC.notebook)
    (folder / "extra" / "deep").mkdir(parents=True)
    (folder / "extra" / "deep" / "notes.txt").write_text("hello")
    (folder / "extra" / "empty").mkdir()
    os.mkfifo(folder / "pipe.json")
    entries, partial, copy = read_back(folder, tmp_path / "there")
    assert (SPEC.evidence_file, LINK, None) in entries and not partial
    assert os.readlink(copy / SPEC.evidence_file) != "/etc/passwd"  # never a real target
    assert facts(copy, "s1") == facts(folder, "s1")
    assert facts(copy, "s1")["evidence"] == "unreadable"
    assert content_hash(copy) == content_hash(folder)
    assert (copy / "extra" / "empty").is_dir()


def test_a_linked_submission_folder_is_refused_there_too(tmp_path):
    real = build_submission(tmp_path / "elsewhere", "s1", BY_NAME["correct"])
    folder = tmp_path / "here" / "submitted" / "s1" / SPEC.name
    folder.parent.mkdir(parents=True)
    folder.symlink_to(real)
    _, _, copy = read_back(folder, tmp_path / "there")
    assert facts(copy, "s1") == facts(folder, "s1")
    assert "symbolic link" in load_submission(copy, "s1", assignment=SPEC).fatal


def test_files_beyond_the_budget_travel_as_their_size(tmp_path):
    """What the grader reads goes first; a file that does not fit arrives as a sparse file of
    its size (the grader only hashes it), and the coordinator hashes the original."""
    folder = build_submission(tmp_path / "here", "s1", BY_NAME["correct"])
    (folder / "data.bin").write_bytes(os.urandom(300_000))
    notebook_size = (folder / SPEC.notebook).stat().st_size
    evidence_size = (folder / SPEC.evidence_file).stat().st_size
    entries, partial, copy = read_back(folder, tmp_path / "there",
                                       budget=notebook_size + evidence_size + 1000)
    assert partial and ("data.bin", SIZE_ONLY, 300_000) in entries
    assert (copy / "data.bin").stat().st_size == 300_000
    here, there = facts(folder, "s1"), facts(copy, "s1")
    assert here["submission"].pop("content_hash") != there["submission"].pop("content_hash")
    assert here == there


def test_an_oversized_evidence_file_is_refused_by_its_size_there_too(tmp_path):
    folder = build_submission(tmp_path / "here", "s1", BY_NAME["correct"])
    with (folder / SPEC.evidence_file).open("ab") as handle:
        handle.write(b" " * (2 << 20))
    entries, partial, copy = read_back(folder, tmp_path / "there")
    assert (SPEC.evidence_file, SIZE_ONLY, (folder / SPEC.evidence_file).stat().st_size) in entries
    here, there = facts(folder, "s1"), facts(copy, "s1")
    assert partial and here["findings"] == there["findings"]
    assert "larger than" in str(there["findings"])


@pytest.mark.parametrize("name", ["../escape", "/etc/passwd", "a/../../b"])
def test_unpack_refuses_paths_outside_the_folder(tmp_path, name):
    with pytest.raises(ValueError, match="not a relative path"):
        unpack([(name, FILE, b"x")], tmp_path / "copy")


def test_a_killed_workers_copies_are_removed_by_the_next_worker():
    """A worker killed mid-task leaves its folder of student files; the next worker set up
    on the machine removes it, and never a live worker's."""
    import shutil
    import subprocess
    import sys
    import tempfile

    from autograder.batch.cluster.worker import SCRATCH_PREFIX, remove_dead_workers_folders
    from autograder.legacy_names import DASK_SCRATCH_PREFIX

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    folders = []
    for prefix in (SCRATCH_PREFIX, DASK_SCRATCH_PREFIX):  # a worker from before the rename too
        dead = Path(tempfile.mkdtemp(prefix=f"{prefix}{gone.stdout.strip()}-"))
        (dead / "submitted").mkdir()
        alive = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
        folders += [(dead, alive)]
    try:
        remove_dead_workers_folders()
        for dead, alive in folders:
            assert not dead.exists() and alive.is_dir()
    finally:
        for pair in folders:
            for folder in pair:
                shutil.rmtree(folder, ignore_errors=True)


def test_a_scratch_folder_removed_while_the_sweep_looks_is_passed_over(tmp_path):
    """Another worker's teardown can remove its folder between the sweep's listing and its
    look at the owner: the sweep goes on (a session setup that raised here failed a batch)."""
    from autograder.batch.cluster.worker import _remove_if_dead

    _remove_if_dead(tmp_path / "autograder-dask-1-gone", "1")  # no such folder: no error
