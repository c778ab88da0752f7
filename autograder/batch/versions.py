"""Every collected version of a submission, kept: ``versions/<student>/<assignment>/<hash16>/``.

``nbgrader collect --update`` and ``zip_collect --force`` replace a student's folder in
``submitted/``, so a course that grades "the last on-time submission" (``version_rule``)
would have nothing left to grade once a late resubmission arrives. Before a submission is
replaced, and after a new one is collected (and by ``autograde``, for a root collected by
hand), its files are copied here, named by the first 16 hex digits of their content hash
(``autograder.grading.submission.content_hash``), with ``version.json`` beside them::

    versions/<student>/<assignment>/<hash16>/files/...        the submission, as collected
    versions/<student>/<assignment>/<hash16>/version.json     hash, times, its receipt
    versions/<student>/<assignment>/<hash16>/results.json     its grade, once graded

The files sit in ``files/`` so that nothing a student submits (a ``version.json`` of their
own) can collide with ours. Keeping is idempotent (the same content is kept once) and a
version is never deleted. The receipt kept with a version (``autograder.batch.receipts``)
is the one recorded for its content, so its lateness is judged from its own times.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from autograder.base.course import RESULTS_JSON, Course, parse_time, submission_time
from autograder.batch import receipts as receipts_file
from autograder.grading.submission import content_hash
from autograder.results import journal
from autograder.results.result import SubmissionResult, write_atomically

VERSIONS = "versions"
FILES = "files"
VERSION_JSON = "version.json"
SHORT = 16  # hex digits of the content hash that name a version's folder


@dataclass(frozen=True)
class Version:
    """One kept version: its folder, full content hash, ``timestamp.txt``'s time ("" without
    one), the receipt recorded for this content (None: none), and when it was kept."""

    folder: Path
    hash: str
    submitted_at: str
    receipt: receipts_file.Receipt | None
    collected_at: str

    @property
    def short(self) -> str:
        return self.hash[:SHORT]

    @property
    def files(self) -> Path:
        return self.folder / FILES

    @property
    def results_json(self) -> Path:
        return self.folder / RESULTS_JSON

    def moment(self) -> datetime | None:
        """When it was submitted (its receipt's time standing in for a missing claim), for
        ordering versions; None when neither is known."""
        text = self.submitted_at or (self.receipt.received_at if self.receipt else "") or ""
        try:
            return parse_time(text) if text else None
        except (ValueError, OverflowError):
            return None


def student_folder(course: Course, student: str) -> Path:
    """``versions/<student>/<assignment>/`` of ``course``."""
    return course.root / VERSIONS / student / course.assignment


def _receipt_for(course: Course, student: str, digest: str,
                 pending: receipts_file.Receipt | None = None) -> receipts_file.Receipt | None:
    """The receipt recorded for this content of the student's submission, if any:
    ``pending`` (made by the collect under way, not saved yet) when it is for this content,
    else the course's."""
    if pending is not None and pending.submission_hash == digest:
        return pending
    try:
        receipt = receipts_file.load(course.root, course.assignment).get(student)
    except receipts_file.ReceiptsError:
        return None  # the grader says so when it judges the submission in submitted/
    return receipt if receipt is not None and receipt.submission_hash == digest else None


def _write_meta(version: Version) -> None:
    data = {"hash": version.hash, "submitted_at": version.submitted_at,
            "receipt": asdict(version.receipt) if version.receipt else None,
            "collected_at": version.collected_at}
    write_atomically(version.folder / VERSION_JSON, json.dumps(data, indent=1) + "\n")


def load(folder: Path) -> Version | None:
    """The version kept in ``folder``, or None when its ``version.json`` is missing or not ours."""
    try:
        data = json.loads((Path(folder) / VERSION_JSON).read_text(encoding="utf-8"))
        receipt = data.get("receipt")
        return Version(Path(folder), str(data["hash"]), str(data.get("submitted_at") or ""),
                       receipts_file.Receipt(**receipt) if isinstance(receipt, dict) else None,
                       str(data.get("collected_at") or ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def keep(course: Course, student: str, now: datetime | None = None,
         pending: receipts_file.Receipt | None = None) -> Version | None:
    """Keep the student's submission in ``submitted/`` as a version (None: no submission).
    Already kept (same content): nothing is copied; a receipt recorded since is added.
    ``pending``: the receipt the collect under way made for the student, not saved yet (an
    exchange submission about to be replaced by an LMS download of the same collect)."""
    source = course.submitted(student)
    if not source.is_dir() or source.is_symlink():
        return None
    digest = content_hash(source)
    receipt = _receipt_for(course, student, digest, pending)
    target = student_folder(course, student) / digest[:SHORT]
    kept = load(target)
    if kept is not None:
        if kept.receipt is None and receipt is not None:
            kept = Version(kept.folder, kept.hash, kept.submitted_at, receipt, kept.collected_at)
            _write_meta(kept)
        return kept
    journal.before_tree(target)  # made by this change: gone again if it is rolled back
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=".keeping-"))
    try:
        shutil.copytree(source, staging / FILES, symlinks=True)  # a link is kept, never followed
        if content_hash(staging / FILES) != digest:  # changed while copied: kept next time
            return None
        claim, _ = submission_time(staging / FILES)
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        version = Version(staging, digest, receipts_file.time_text(claim) if claim else "",
                          receipt, receipts_file.time_text(moment))
        _write_meta(version)
        if target.exists():  # kept meanwhile by another run: that one stands
            return load(target)
        staging.rename(target)
        return Version(target, digest, version.submitted_at, receipt, version.collected_at)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def keep_all(course: Course, students: list[str] | None = None,
             pending: dict[str, receipts_file.Receipt] | None = None) -> int:
    """Keep every (or each named) student's current submission, each with its receipt
    (``pending``: those made by the collect under way, not saved yet); returns how many
    were new."""
    new = 0
    for student in students if students is not None else course.students():
        folder = student_folder(course, student)
        before = {entry.name for entry in folder.iterdir()} if folder.is_dir() else set()
        version = keep(course, student, pending=(pending or {}).get(student))
        new += version is not None and version.folder.name not in before
    return new


def kept(course: Course, student: str) -> list[Version]:
    """Every version kept for the student, oldest first (by submission time, then by when
    it was kept; a version without a time first)."""
    folder = student_folder(course, student)
    try:
        found = [load(entry) for entry in folder.iterdir()
                 if entry.is_dir() and not entry.name.startswith(".")]
    except OSError:
        return []
    versions = [version for version in found if version is not None]
    floor = datetime.min.replace(tzinfo=UTC)
    return sorted(versions, key=lambda v: (v.moment() or floor, v.collected_at, v.hash))


def find(course: Course, student: str, digest: str) -> Version | None:
    """The kept version of this content (a full or a 16-digit hash), if any."""
    return load(student_folder(course, student) / digest[:SHORT])


def graded_files(course: Course, result: SubmissionResult) -> Path:
    """The folder of the files ``result`` graded: the kept version the course's version rule
    counted (an earlier one than ``submitted/`` holds), else the student's submission; what a
    person reads to review it (the limitation's text) and the report compares must be these."""
    counted = (result.version or {}).get("counted", "")
    version = find(course, result.student, counted) if counted else None
    return version.files if version is not None and version.files.is_dir() else (
        course.submitted(result.student))
