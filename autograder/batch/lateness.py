"""Late or not, from ``timestamp.txt`` checked against a time the student does not control.

``timestamp.txt`` is the student's claim: their own ``nbgrader submit`` writes it into a
folder they own, so they can back-date it (and their files' mtimes) after the due date.
The receipt (``autograder.batch.receipts``, written by ``cohort collect``) holds when the
files reached the exchange by the file system's change times, which no user can set, or
the time an LMS download records. The rule:

* claim and receipt within ``TOLERANCE`` of each other: the claim stands (``time_source``
  is the receipt's source). An honest ``nbgrader submit`` takes its time, copies the files
  and writes timestamp.txt within seconds, so honest submissions always agree.
* the receipt is later by more: the files reached the course after the time the claim
  gives (back-dated, or changed after submitting). Earlier by more: the claim is later
  than the files arrived, which one clock cannot produce (clocks that disagree, or a
  hand-written claim). Either way, with a due date, ``late`` is ``unknown`` and the
  submission goes to review with a reason naming both times.
* no claim but a receipt time: the receipt's time is the submission time (an LMS
  download, whose zip_collect writes no timestamp.txt).
* no receipt at all (a root collected by hand, then plain ``autograde``): the claim is
  used, and ``time_source`` says ``timestamp.txt only`` (results.json, grades.csv, the
  cohort summary): shown, not sent to review, since the TA chose to collect by hand.
* a receipt made for other content, or one whose time could not be established for a
  submission that came from the exchange, or a damaged receipts file: ``unknown``, review.

Without a due date nothing is judged: ``late`` is ``unknown`` (never "no": a late student
must not read as on time because a run was not given the due date), nothing goes to review,
and the TA's reason says ``NOT_JUDGED``; ``submitted_at`` and its source are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.base.course import submission_time
from autograder.batch import receipts as receipts_file
from autograder.grading.submission import content_hash

TOLERANCE = timedelta(minutes=2)
SOURCE_CLAIM_ONLY = "timestamp.txt only"  # no record the student cannot write
CHECK = "check when it was submitted"
NOT_JUDGED = "no due date: lateness not judged"
NO_RECEIPT = ("this version was kept without an arrival receipt, though the course's collects "
              f"record one for every version, so its timestamp.txt is confirmed by nothing: {CHECK}")


@dataclass(frozen=True)
class Lateness:
    """What a result says about time; ``note`` (when set) is the reason it goes to review."""

    submitted_at: str = ""
    late: bool = False
    unknown: bool = False
    time_source: str = ""  # exchange | lms | "timestamp.txt only" | "" (no time at all)
    received_at: str = ""  # the receipt's time, "" without one
    note: str = ""

    def key(self) -> tuple:
        """What a saved result must match to be current."""
        return (self.submitted_at, self.late, self.unknown, self.time_source, self.received_at)


def shown(moment: datetime) -> str:
    """A time as results.json and grades.csv show it (whole seconds, UTC)."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def span(delta: timedelta) -> str:
    """A gap in words: ``3 days 2 h``, ``1 h 4 min``, ``7 min 12 s``."""
    seconds = int(abs(delta).total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days != 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min" + (f" {secs} s" if secs else "")


def _layout(folder: Path) -> tuple[Path, str, str]:
    """(course root, student, assignment) of ``submitted/<student>/<assignment>``."""
    folder = Path(folder)
    return folder.parent.parent.parent, folder.parent.name, folder.name


def disagreement(claim: datetime, receipt: receipts_file.Receipt) -> str:
    """"" when the claim and the receipt agree (within TOLERANCE), else why not, in words."""
    moment = receipt.moment
    assert moment is not None
    gap = moment - claim
    if abs(gap) <= TOLERANCE:
        return ""
    said = f"its timestamp.txt says it was submitted at {shown(claim)}"
    if gap > timedelta(0):
        return (f"{said}, but {receipt.how} at {shown(moment)}, {span(gap)} later "
                f"(back-dated, or changed after it was submitted): {CHECK}")
    return (f"{said}, but {receipt.how} at {shown(moment)}, {span(gap)} earlier (a "
            f"submission time later than its files arrived): {CHECK}")


def decide(folder: Path, due: datetime | None) -> Lateness:
    """The submission's time, its source and ``late`` (see the module docstring)."""
    decided = _decide(folder, due)
    if due is None:  # nothing judged: unknown, never "no", and not sent to review
        return replace(decided, late=False, unknown=True, note="")
    return decided


def decide_kept(files: Path, receipt: receipts_file.Receipt | None,
                due: datetime | None) -> Lateness:
    """``decide`` for a kept version (``autograder.batch.versions``): its files are no longer
    in ``submitted/``, so the receipt is the one kept with them, not the course's current one.

    A version kept without a receipt in a course root whose collects record them
    (``receipts/<assignment>.json`` exists) fails closed: ``cohort collect`` keeps every
    version it collects with its receipt, so its ``timestamp.txt`` is confirmed by nothing;
    its lateness is ``unknown`` (never on time, so ``last_on_time`` and
    ``best_after_penalty`` never pick it), and the reason says so."""
    if receipt is None and _receipts_recorded(files):
        claim, _ = submission_time(files)
        unconfirmed = Lateness(shown(claim) if claim else "", False, True, SOURCE_CLAIM_ONLY
                               if claim else "", "", NO_RECEIPT)
        return replace(unconfirmed, note="") if due is None else unconfirmed
    decided = _decide(files, due, receipt, "")
    if due is None:
        return replace(decided, late=False, unknown=True, note="")
    return decided


def _receipts_recorded(files: Path) -> bool:
    """Whether the course root of a kept version's ``files``
    (``<root>/versions/<student>/<assignment>/<hash16>/files``) records arrival receipts."""
    files = Path(files)
    if len(files.parents) < 5 or files.parents[3].name != "versions":
        return False
    return receipts_file.path_for(files.parents[4], files.parents[1].name).exists()


def _course_receipt(folder: Path) -> tuple[receipts_file.Receipt | None, str]:
    """The receipt the course holds for ``submitted/<student>/<assignment>``, or why none
    can be read."""
    root, student, assignment = _layout(folder)
    try:
        return receipts_file.load(root, assignment).get(student), ""
    except receipts_file.ReceiptsError as error:
        return None, str(error)


def _decide(folder: Path, due: datetime | None,
            receipt: receipts_file.Receipt | None = None, damaged: str | None = None
            ) -> Lateness:
    claim, problem = submission_time(folder)
    if due is not None and due.tzinfo is None:
        due = due.replace(tzinfo=UTC)
    if damaged is None:  # not given: the course's receipt for submitted/<student>/<assignment>
        receipt, damaged = _course_receipt(folder)
    claimed = shown(claim) if claim else ""

    def unknown(note: str, source: str, received: str = "") -> Lateness:
        if due is None:  # nothing is late without a due date, and nothing goes to review
            return Lateness(claimed, False, False, source, received)
        return Lateness(claimed, False, True, source, received, note)

    def verdict(moment: datetime, source: str, received: str = "") -> Lateness:
        return Lateness(shown(moment), bool(due and moment > due), False, source, received)

    if damaged:
        return unknown(f"the course's receipts file cannot be read ({damaged}), so the "
                       f"submission time cannot be confirmed: {CHECK}, or run `cohort "
                       "collect` again", SOURCE_CLAIM_ONLY if claim else "")
    if receipt is None:
        if claim is None:
            return unknown(f"no submission time ({problem}): {CHECK}", "")
        return verdict(claim, SOURCE_CLAIM_ONLY)
    if receipt.submission_hash != content_hash(folder):
        return unknown("its files changed after `cohort collect` recorded when they arrived, "
                       f"so the submission time cannot be confirmed: {CHECK}, or collect "
                       "again", SOURCE_CLAIM_ONLY if claim else "")
    moment = receipt.moment
    if moment is None:
        if claim is None:
            return unknown(f"no submission time ({problem}; {receipt.how}): {CHECK}",
                           receipt.source)
        if receipt.source == receipts_file.SOURCE_EXCHANGE:
            return unknown(f"its timestamp.txt says it was submitted at {claimed}, but "
                           f"{receipt.how}: {CHECK}", receipt.source)
        return verdict(claim, SOURCE_CLAIM_ONLY)  # an LMS download without times
    received = shown(moment)
    if claim is None:
        return verdict(moment, receipt.source, received)
    why = disagreement(claim, receipt)
    if why:
        return unknown(why, receipt.source, received)
    return verdict(claim, receipt.source, received)
