"""Fault injection on a small course root (issue 51): a command of the grader is hurt (a kill
at a random moment or right after a chosen write, SIGTERM or SIGHUP, a full disk, an
unwritable output, a corrupted record), the next command runs, and every output of the root
must then agree with an uninterrupted run's, with ``status`` calling nothing current that is
not.

The root holds the ``vectors`` bundle's submissions: two correct, one wrong, one late under a
late policy, and one TA decision. Each command starts from a root made once (``Scenario``):
``autograde`` from a graded and exported root where one student resubmitted and one is new,
``review set`` from the graded and exported root, ``export`` from the graded root never
exported. Every command runs as a real subprocess (``python -m autograder``); a trial works
on a copy of its scenario's root (``shutil.copytree`` keeps the files' times, which
``status`` reads).

A snapshot (``snapshot``) is a root's outputs as plain data: comparing two says where they
differ, whatever the roots' paths and the day. ``status`` is for people; reading its
"current"/"STALE" words here is a test's business, never the product's.

Used by tests/faults/test_fault_injection.py (a few trials of each fault) and
scripts/fault_injection.py (many, as a table).
"""

from __future__ import annotations

import csv
import fnmatch
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.base.course import TIMESTAMP_TXT
from autograder.batch.root_lock import LOCK_FILE
from autograder.spec import REPO
from tests.support.cohort_outputs import without
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

ASSIGNMENT = VECTORS.name
DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
LATE_POLICY = "10%/day"
FAST = ["--no-progress", "--jobs", "2", "--cell-timeout", "10", "--call-timeout", "5"]
FAULT_AFTER_WRITE = "AUTOGRADER_FAULT_AFTER_WRITE"
"""The journal's test hook (autograder/results/journal.py): ``"<n>"`` makes the process that
changes the root kill itself with SIGKILL right after its n-th write of a root file,
``"<glob>:<n>"`` after the n-th write of a file whose root-relative path matches."""
STOP_WITHIN = 30.0  # seconds a signalled run may take to stop
GONE_WITHIN = 5.0  # seconds its other processes may take to follow the coordinator
NOT_THE_GRADE = ("seconds", "graded_on")  # results.json's fields that differ run to run
WRONG = REFERENCE | {"normalize": WRONG_NORMALIZE}

# ---------------------------------------------------------------- commands


def grader(*args: str) -> list[str]:
    return [sys.executable, "-m", "autograder", *args]


def autograde_argv(root: Path) -> list[str]:
    return grader("autograde", ASSIGNMENT, "--root", str(root), *FAST)


def review_set_argv(root: Path) -> list[str]:
    return grader("review", "--root", str(root), "set", "a1", "dot", "1",
                  "--note", "the dot product of the wrong vectors", "--by", "ta")


def export_argv(root: Path) -> list[str]:
    return grader("export", "--root", str(root))


def status_argv(root: Path) -> list[str]:
    return grader("status", "--root", str(root))


def run(argv: list[str], *, env: dict[str, str] | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess:
    """``argv`` to its end, in a session of its own (its pool and zygote go with it after)."""
    process = start(argv, env=env)
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        end_group(process)
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def start(argv: list[str], *, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``argv`` started from the repository, its own process group, hearing SIGINT, SIGTERM
    and SIGHUP as a TA's shell would (a harness started with ``nohup`` or in the background
    of a script would hand its children an ignored SIGHUP or SIGINT)."""
    full = {key: value for key, value in os.environ.items() if key != FAULT_AFTER_WRITE}
    full |= {"AUTOGRADER_SINGLE_USER": "1"} | (env or {})
    return subprocess.Popen(argv, cwd=REPO, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_signals)


def _default_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def end_group(process: subprocess.Popen) -> None:
    """Whatever of ``process``'s group is left (a pool, a zygote), killed: a trial's
    leftovers never hold the next trial's root."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while group_alive(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def must(done: subprocess.CompletedProcess, what: str) -> None:
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")


# ---------------------------------------------------------------- the roots


def nbgrader_timestamp(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S.%f} UTC"


def hand_in(root: Path, student: str, functions: dict[str, str], moment: datetime) -> None:
    folder = submit(root, student, functions)
    (folder / TIMESTAMP_TXT).write_text(nbgrader_timestamp(moment), encoding="utf-8")


def resubmit(root: Path, student: str, functions: dict[str, str], moment: datetime) -> None:
    shutil.rmtree(root / "submitted" / student)
    hand_in(root, student, functions, moment)


@dataclass(frozen=True)
class Scenario:
    """One command of the grader and the root it starts from."""

    name: str
    argv: Callable[[Path], list[str]]
    base: Path


def graded_root(root: Path) -> Path:
    """Four submissions (two correct, one wrong, one a day late under 10%/day), graded with
    the due date and late policy remembered, and one TA decision."""
    on_time = DUE - timedelta(days=1)
    hand_in(root, "a1", REFERENCE, on_time)
    hand_in(root, "a2", REFERENCE, on_time)
    hand_in(root, "b-wrong", WRONG, on_time)
    hand_in(root, "c-late", REFERENCE, DUE + timedelta(hours=20))
    must(run([*autograde_argv(root), "--assignments", str(BUNDLES), "--due",
              f"{DUE:%Y-%m-%d %H:%M} UTC", "--late-policy", LATE_POLICY]), "autograde")
    must(run(grader("review", "--root", str(root), "set", "b-wrong", "normalize", "2",
                    "--note", "half the idea", "--by", "ta")), "review set")
    return root


def make_scenarios(where: Path) -> dict[str, Scenario]:
    """Each command's starting root under ``where`` (made once: a trial copies it)."""
    graded = where / "graded" / "root"
    graded.mkdir(parents=True, mode=0o700)
    graded_root(graded)
    exported = copy_root(graded, where / "exported")
    must(run(export_argv(exported)), "export")
    changed = copy_root(exported, where / "changed")
    resubmit(changed, "a2", WRONG, DUE - timedelta(hours=2))
    hand_in(changed, "d-new", REFERENCE, DUE - timedelta(hours=1))
    return {"autograde": Scenario("autograde", autograde_argv, changed),
            "review set": Scenario("review set", review_set_argv, exported),
            "export": Scenario("export", export_argv, graded)}


def copy_root(source: Path, where: Path) -> Path:
    """A copy in ``where/root`` keeping each file's time (``status`` compares them); every
    root is named ``root`` (outputs name the root's folder: a plain root's "cohort"), closed
    to other users as a course root should be."""
    target = shutil.copytree(source, where / "root", symlinks=True)
    target.chmod(0o700)
    return target


# ---------------------------------------------------------------- snapshots


def _normal(text: str, root: Path) -> str:
    """``text`` with the root's path, and a decision's day ("scored 8 by ta on 2026-12-07":
    a trial may end on the day after its uninterrupted run), as placeholders."""
    text = text.replace(str(root.resolve()), "<root>").replace(str(root), "<root>")
    return re.sub(r"( by \S+ on )\d{4}-\d{2}-\d{2}", r"\1<day>", text)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _json(path: Path, root: Path) -> object:
    text = _read(path)
    if text is None:
        return None
    try:
        return without(json.loads(_normal(text, root)), NOT_THE_GRADE)
    except ValueError:
        return f"<not JSON: {len(text)} characters>"


def _csv(path: Path, root: Path) -> object:
    text = _read(path)
    return None if text is None else list(csv.reader(io.StringIO(_normal(text, root))))


def _page(path: Path, root: Path) -> object:
    """A feedback page: its total as the student reads it, and a digest of the rest (the
    "Graded on" day left out)."""
    text = _read(path)
    if text is None:
        return None
    text = re.sub(r"<dt>Graded on</dt><dd>[^<]*</dd>", "", _normal(text, root))
    total = re.search(r'class="total">(.*?)</p>', text, re.S)
    return {"total": re.sub(r"<[^>]+>", "", total.group(1)).strip() if total else None,
            "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}


def _gradebook(path: Path) -> object:
    """Every score nbgrader's gradebook holds, by student and cell (what ``nbgrader export``
    and formgrader add up), with each notebook's late penalty."""
    if not path.exists():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            scores = db.execute(
                "SELECT sa.student_id, c.name, g.auto_score, g.manual_score, g.extra_credit,"
                " g.needs_manual_grade FROM grade g"
                " JOIN submitted_notebook sn ON g.notebook_id = sn.id"
                " JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
                " JOIN base_cell c ON g.cell_id = c.id").fetchall()
            penalties = db.execute(
                "SELECT sa.student_id, sa.timestamp, sn.late_submission_penalty"
                " FROM submitted_notebook sn"
                " JOIN submitted_assignment sa ON sn.assignment_id = sa.id").fetchall()
    except sqlite3.Error as error:
        return f"<unreadable: {error}>"
    return {"scores": sorted(map(list, scores)), "notebooks": sorted(map(list, penalties))}


def snapshot(root: Path) -> dict[str, object]:
    """Every output of ``root`` as comparable plain data, by a name of its own."""
    found: dict[str, object] = {}
    for folder in sorted((root / "autograded").glob(f"*/{ASSIGNMENT}")):
        student = folder.parent.name
        found[f"results.json/{student}"] = _json(folder / "results.json", root)
        found[f"feedback.html/{student}"] = _page(folder / "feedback.html", root)
    for folder in sorted((root / "feedback").glob(f"*/{ASSIGNMENT}")):
        student = folder.parent.name
        found[f"copy/{student}"] = {"page": _page(folder / f"{ASSIGNMENT}.html", root),
                                    "timestamp": _read(folder / TIMESTAMP_TXT)}
    for name in ("grades.csv", "canvas-grades.csv", "moodle-grades.csv", "nbgrader-export.csv"):
        found[name] = _csv(root / name, root)
    found["summary.md"] = _read(root / "summary.md")
    found["gradebook"] = _gradebook(root / "gradebook.db")
    decisions = _json(root / "decisions.json", root)
    found["decisions"] = ([{k: v for k, v in part.items() if k != "at"}
                           for part in decisions.get("parts", [])]
                          if isinstance(decisions, dict) else decisions)
    found["course.json"] = _json(root / "course.json", root)
    # The grader's own files are not outputs: the lock (made by the first command that holds
    # the root, and kept), the journal, and what a run graded kept to resume from.
    found["files"] = sorted(str(path.relative_to(root)) for path in root.rglob("*")
                            if path.is_file() and path.relative_to(root).parts[0] != "versions"
                            and not path.relative_to(root).parts[0].startswith(".autograder"))
    found["versions"] = sorted(str(path.relative_to(root / "versions"))
                               for path in (root / "versions").rglob("results.json"))
    return {key: value for key, value in found.items() if value is not None}


def differences(got: dict[str, object], want: dict[str, object], limit: int = 400,
                against: str = "an uninterrupted run has") -> list[str]:
    """Each output where ``got`` is not ``want``: its name and both values (shortened)."""
    def shown(value: object) -> str:
        text = json.dumps(value, sort_keys=True) if value is not None else "(missing)"
        return text if len(text) <= limit else text[:limit] + "..."

    return [f"{key}: got {shown(got.get(key))}, {against} {shown(want.get(key))}"
            for key in sorted(set(got) | set(want)) if got.get(key) != want.get(key)]


# ---------------------------------------------------------------- status


STATUS_LINE = re.compile(r"^  (.+?)\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC  (current|STALE.*)$")


def status_states(root: Path) -> tuple[dict[str, bool], str]:
    """``status``'s word for each output it lists (True: current), and its whole text."""
    done = run(status_argv(root), timeout=120)
    text = done.stdout + done.stderr
    if done.returncode != 0:
        return {"status itself": False}, text
    states = {}
    for line in done.stdout.splitlines():
        matched = STATUS_LINE.match(line)
        if matched:
            states[matched.group(1).strip()] = matched.group(2) == "current"
    if "not graded yet" in done.stdout:
        states["not graded yet"] = False
    return states, text


def views_of(output: str, keys: list[str]) -> list[str]:
    """The snapshot's names that ``status``'s output line ``output`` stands for."""
    if output.startswith("feedback copies"):
        return [key for key in keys if key.startswith("copy/")]
    if output == "gradebook.db":
        return ["gradebook"]
    if output == "not graded yet":
        return [key for key in keys if key.startswith("results.json/")]
    return [output] if output in keys else []


def status_problems(states: dict[str, bool], got: dict[str, object],
                    want: dict[str, object]) -> list[str]:
    """Where ``status`` is wrong about the root: an output called current that does not
    agree with an uninterrupted run's, or called stale though it agrees."""
    if "status itself" in states:
        return ["status failed"]
    problems = []
    keys = sorted(set(got) | set(want))
    for output, current in states.items():
        views = views_of(output, keys)
        agree = all(got.get(key) == want.get(key) for key in views)
        if current and not agree:
            problems.append(f"status calls {output} current, but it differs from an "
                            f"uninterrupted run's ({', '.join(k for k in views if got.get(k) != want.get(k))})")
        if not current and agree:
            problems.append(f"status calls {output} stale, but it agrees with an uninterrupted run's")
    return problems


# ---------------------------------------------------------------- trials


@dataclass
class Trial:
    """One fault on one command: whether it landed (the command was hurt), whether the root
    held, and what went wrong if not."""

    fault: str
    command: str
    landed: bool = True
    problems: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def held(self) -> bool:
        return self.landed and not self.problems


@dataclass
class Reference:
    """An uninterrupted run of a scenario's command: its root's snapshot and its duration."""

    snapshot: dict[str, object]
    seconds: float
    status: dict[str, bool]
    grows: int  # bytes the run adds to the root


def size(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def reference(scenario: Scenario, where: Path) -> Reference:
    """The command run once, undisturbed, on a copy of its root; timed here, on this
    machine, so a random moment is drawn within what the command really takes."""
    root = copy_root(scenario.base, where)
    began = time.monotonic()
    must(run(scenario.argv(root)), f"an uninterrupted {scenario.name}")
    seconds = time.monotonic() - began
    states, _ = status_states(root)
    return Reference(snapshot(root), seconds, states, max(size(root) - size(scenario.base), 0))


def one_line_problems(done: subprocess.CompletedProcess, names: str = "") -> list[str]:
    """A refused command says one line on stderr, exits non-zero, never a traceback; and
    names ``names`` (a file) when given."""
    problems = []
    if done.returncode == 0:
        problems.append(f"exit 0 (stdout ends: {done.stdout.strip()[-300:]!r})")
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("warning:")]
    if "Traceback" in done.stderr:
        problems.append(f"a traceback: {lines[-1][:300] if lines else ''!r} ({len(lines)} lines)")
    elif len(lines) != 1 and done.returncode != 0:
        problems.append(f"{len(lines)} lines on stderr: {done.stderr.strip()[-300:]!r}")
    if names and names not in done.stderr:
        problems.append(f"stderr does not name {names}: {done.stderr.strip()[-200:]!r}")
    return problems


def finish(trial: Trial, scenario: Scenario, root: Path, ref: Reference,
           before: list[list[str]] | None = None) -> Trial:
    """The next command(s) (``before``, then the same command again), then the root against
    the uninterrupted run's, and ``status`` against both."""
    for argv in [*(before or []), scenario.argv(root)]:
        done = run(argv)
        if done.returncode != 0:
            trial.problems.append(f"the next command ({' '.join(argv[3:5])}) failed "
                                  f"({done.returncode}): {(done.stdout + done.stderr).strip()[-400:]}")
            return trial
    got = snapshot(root)
    trial.problems += differences(got, ref.snapshot)
    states, _ = status_states(root)
    trial.problems += status_problems(states, got, ref.snapshot)
    return trial


def random_kill(scenario: Scenario, where: Path, ref: Reference, seed: int) -> Trial:
    """kill -9 of the command's whole process group at a moment drawn (seeded) within its
    measured duration."""
    delay = random.Random(seed).uniform(0, ref.seconds)
    trial = Trial("SIGKILL at a random moment", scenario.name, note=f"after {delay:.2f} s")
    root = copy_root(scenario.base, where)
    process = start(scenario.argv(root))
    time.sleep(delay)
    trial.landed = process.poll() is None
    end_group(process)
    return finish(trial, scenario, root, ref)


def kill_after_write(scenario: Scenario, where: Path, ref: Reference, spec: str) -> Trial:
    """The journal's hook kills the writing process right after the write ``spec`` names;
    a command that ends normally was not hurt (no hook, or fewer such writes)."""
    trial = Trial(f"SIGKILL after write {spec}", scenario.name)
    root = copy_root(scenario.base, where)
    process = start(scenario.argv(root), env={FAULT_AFTER_WRITE: spec})
    with suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=300)
    trial.landed = process.returncode == -signal.SIGKILL
    if not trial.landed:
        trial.note = f"{HOOK_MISSING} (exit {process.returncode})"
    end_group(process)
    return finish(trial, scenario, root, ref)


def _times(root: Path) -> dict[Path, int]:
    """Each file's time (the lock aside), read while a command changes the tree: a folder
    or file gone between listing and reading is skipped (``os.walk`` ignores such errors)."""
    times = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name != LOCK_FILE:
                with suppress(OSError):
                    times[Path(folder, name)] = os.stat(Path(folder, name)).st_mtime_ns
    return times


def wait_for_a_write(root: Path, process: subprocess.Popen, timeout: float) -> bool:
    """Whether ``process`` changed a file of ``root`` (its lock aside) while still running:
    a signal sent then lands in the middle of the command's writes, however busy the
    machine."""
    before = _times(root)
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if _times(root) != before:
            return process.poll() is None
        time.sleep(0.02)
    return False


def kill_on_write_seen(scenario: Scenario, where: Path, ref: Reference, spec: str, *,
                       finish_with: bool = True) -> Trial:
    """kill -9 of the command's process group as soon as a watcher sees the n-th change of a
    file matching the glob (``"<glob>:<n>"``, root-relative, ``fnmatch``): the kill lands
    within a poll (tens of milliseconds) after that write, without any hook in the grader."""
    pattern, n = spec.rsplit(":", 1)
    trial = Trial(f"SIGKILL when a write of {pattern} is seen", scenario.name)
    root = copy_root(scenario.base, where)
    seen: set[tuple[Path, int]] = set()
    known = _times(root)
    process = start(scenario.argv(root))
    while process.poll() is None and len(seen) < int(n):
        now = _times(root)
        seen |= {(path, moment) for path, moment in now.items()
                 if known.get(path) != moment
                 and fnmatch.fnmatch(str(path.relative_to(root)), pattern)}
        known |= now
        time.sleep(0.01)
    trial.landed = process.poll() is None
    end_group(process)
    trial.note = (f"killed after seeing {len(seen)} write(s) of {pattern}" if trial.landed
                  else f"ended after {len(seen)} write(s) of {pattern}")
    return finish(trial, scenario, root, ref) if finish_with else trial


def terminate(scenario: Scenario, where: Path, ref: Reference, signum: int, seed: int) -> Trial:
    """SIGTERM or SIGHUP to the coordinator's pid alone (as systemd, a scheduler or a closed
    ssh session send it) once the command has begun writing the root, after a seeded share
    of its measured duration more (none for seed 0): it must stop like Ctrl-C (one line,
    non-zero, every process of the run gone soon after), or finish its change first and
    exit 0 (the comparison then wants all of it)."""
    delay = 0.0 if seed == 0 else random.Random(seed).uniform(0, 0.5) * ref.seconds
    name = signal.Signals(signum).name
    trial = Trial(f"{name} to the coordinator", scenario.name,
                  note=f"{delay:.2f} s after its first write")
    root = copy_root(scenario.base, where)
    process = start(scenario.argv(root))
    if wait_for_a_write(root, process, 300):
        time.sleep(delay)
    if process.poll() is not None:
        trial.landed = False
        trial.note = "the command ended before the signal"
        end_group(process)
        return finish(trial, scenario, root, ref)
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=STOP_WITHIN)
    except subprocess.TimeoutExpired:
        trial.problems.append(f"still running {STOP_WITHIN:.0f} s after {name}")
        end_group(process)
        return finish(trial, scenario, root, ref)
    deadline = time.monotonic() + GONE_WITHIN
    while group_alive(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if group_alive(process.pid):
        trial.problems.append(f"processes of the run still alive {GONE_WITHIN:.0f} s after "
                              f"the coordinator ended on {name}")
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if done.returncode == -signum:
        trial.problems.append(f"ended by {name} without a word (exit {done.returncode})")
    elif done.returncode == 0:  # it finished its change first: the root must show all of it
        trial.note += f"; completed despite {name} (exit 0)"
    else:
        trial.problems += one_line_problems(done)
    end_group(process)
    return finish(trial, scenario, root, ref)


@contextmanager
def small_tmpfs(where: Path, size_kb: int) -> Iterator[Path]:
    """A tmpfs of ``size_kb`` at ``where`` (root only); unmounted after."""
    where.mkdir(parents=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PermissionError(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def can_mount() -> str:
    """Why this machine cannot mount a tmpfs ("" when it can)."""
    if os.geteuid() != 0:
        return "not root"
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        try:
            with small_tmpfs(Path(scratch) / "probe", 64):
                return ""
        except PermissionError as error:
            return str(error)


def fill(disk: Path, leave: int) -> Path:
    """A file filling ``disk`` but ``leave`` bytes."""
    filler = disk / "filler"
    stats = os.statvfs(disk)
    free = stats.f_bavail * stats.f_frsize
    with filler.open("wb") as handle:
        with suppress(OSError):
            handle.write(b"\0" * max(free - leave, 0))
    return filler


def full_disk(scenario: Scenario, where: Path, ref: Reference, leave: int) -> Trial:
    """The root on a small tmpfs with ``leave`` bytes free: the command must refuse in one
    line naming the disk's problem, leave nothing half-written, and complete once there is
    room."""
    trial = Trial("full disk" + (f" ({leave} bytes free)" if leave else ""), scenario.name)
    with small_tmpfs(where / "disk", size(scenario.base) // 1024 * 3 + 8192) as disk:
        root = copy_root(scenario.base, disk)
        filler = fill(disk, leave)
        done = run(scenario.argv(root))
        if done.returncode == 0:
            trial.note = "ended normally: the space left was enough"
            trial.landed = False
        else:
            trial.problems += one_line_problems(done)
        filler.unlink()
        return finish(trial, scenario, root, ref)


def immutable(scenario: Scenario, where: Path, ref: Reference, name: str = "grades.csv") -> Trial:
    """``chattr +i`` on an output: one line naming it and the fix, non-zero, the root
    unchanged; done once the file is writable again."""
    trial = Trial(f"immutable {name}", scenario.name)
    root = copy_root(scenario.base, where)
    target = root / name
    locked = subprocess.run(["chattr", "+i", str(target)], capture_output=True, text=True,
                            check=False)
    if locked.returncode != 0:
        trial.landed = False
        trial.note = f"chattr +i not supported here: {locked.stderr.strip()}"
        return trial
    try:
        before = snapshot(root)
        done = run(scenario.argv(root))
        if done.returncode == 0 and not differences(snapshot(root), ref.snapshot):
            trial.landed = False  # nothing it had to change was in that file
            trial.note = f"the command had nothing to write in {name}"
        else:
            trial.problems += one_line_problems(done, name)
        if done.returncode != 0:
            trial.problems += [f"changed by the refused command: {line}" for line in
                               differences(snapshot(root), before, against="before it")]
    finally:
        subprocess.run(["chattr", "-i", str(target)], check=False)
    return finish(trial, scenario, root, ref)


def names_record(text: str, student: str) -> bool:
    """Whether ``text`` names ``student``'s results.json by its path (root-relative or
    whole): "a1: no results.json yet" is not naming a file that is there but unreadable."""
    return f"{student}/{ASSIGNMENT}/results.json" in text


def corrupt_results(scenario: Scenario, where: Path, ref: Reference,
                    student: str = "a1") -> Trial:
    """A results.json cut in half: ``status`` names it, the command names it (refusing, or
    regrading it and saying so), and after ``autograde`` and the command all agrees."""
    relative = f"autograded/{student}/{ASSIGNMENT}/results.json"
    trial = Trial("truncated results.json", scenario.name)
    root = copy_root(scenario.base, where)
    record = root / relative
    text = record.read_text(encoding="utf-8")
    record.write_text(text[: len(text) // 2], encoding="utf-8")
    _, said = status_states(root)
    if not names_record(said, student):
        trial.problems.append(f"status does not name {relative}")
    done = run(scenario.argv(root))
    if not names_record(done.stdout + done.stderr, student):
        trial.problems.append(f"{scenario.name} (exit {done.returncode}) does not name "
                              f"{relative}: {(done.stdout + done.stderr).strip()[-300:]!r}")
    if done.returncode != 0:
        trial.problems += one_line_problems(done)
    repair = [] if scenario.name == "autograde" else [autograde_argv(root)]
    return finish(trial, scenario, root, ref, before=repair)


def garbage_decisions(scenario: Scenario, where: Path, ref: Reference) -> Trial:
    """decisions.json not JSON: the command refuses in one line naming it and leaves it as
    it is (the TA's decisions are in it); once it is mended the command completes."""
    trial = Trial("garbage in decisions.json", scenario.name)
    root = copy_root(scenario.base, where)
    record = root / "decisions.json"
    kept, written = record.read_bytes(), record.stat()
    record.write_bytes(kept[: len(kept) // 3] + b"\x00garbage{{")
    damaged = record.read_bytes()
    done = run(scenario.argv(root))
    trial.problems += one_line_problems(done, "decisions.json")
    if record.read_bytes() != damaged:
        trial.problems.append("decisions.json was rewritten: the decisions it held are gone")
    record.write_bytes(kept)  # the TA restores it from a copy kept with its time (cp -p)
    os.utime(record, ns=(written.st_atime_ns, written.st_mtime_ns))
    return finish(trial, scenario, root, ref)


WRITE_KINDS = {
    "autograde": ["1", "3", "*/results.json:1", "*/feedback.html:1", "grades.csv:1",
                  "gradebook.db:1", "canvas-grades.csv:1", "feedback/*/*/*:1", "versions/*/*/*/results.json:1"],
    "review set": ["1", "decisions.json:1", "*/results.json:1", "*/feedback.html:1",
                   "grades.csv:1", "gradebook.db:1", "canvas-grades.csv:1", "feedback/*/*/*:1"],
    "export": ["1", "nbgrader-export.csv:1", "canvas-grades.csv:1", "summary.md:1",
               "feedback/*/*/*:1", "gradebook.db:1"],
}
"""The writes of each command to kill right after (the journal hook's specs). A glob names
every part of the root-relative path (``feedback/*/*/*``), so it matches alike under
``fnmatch`` (where ``*`` crosses ``/``) and ``PurePath.match``."""


# ---------------------------------------------------------------- the plan

COMMANDS = ("autograde", "review set", "export")
HOOK_MISSING = ("not killed: the journal's AUTOGRADER_FAULT_AFTER_WRITE hook is not present "
                "(or the command makes fewer such writes)")


@dataclass(frozen=True)
class Planned:
    """A trial to run: ``hurt(scenario, folder, reference)`` does the fault and the checks."""

    kind: str  # the table's row: the fault, without its seed or position
    command: str
    label: str
    hurt: Callable[[Scenario, Path, Reference], Trial]

    @property
    def id(self) -> str:
        return f"{self.command}-{self.label}".replace(" ", "_")


def _planned(kind: str, command: str, label: str, how: Callable[..., Trial],
             *args: object) -> Planned:
    return Planned(kind, command, label,
                   lambda scenario, where, ref: how(scenario, where, ref, *args))


def plan(*, random_kills: int, write_kinds: dict[str, list[str]], signalled: tuple[str, ...],
         signal_trials: int, disk: dict[str, int], once: dict[str, tuple[str, ...]],
         seed: int = 0, seen: dict[str, list[str]] | None = None,
         then_export: dict[str, list[str]] | None = None) -> list[Planned]:
    """The trials: ``random_kills`` random moments for each command; a kill after each write
    of ``write_kinds[command]`` (the journal's hook) and as soon as a watcher sees each write
    of ``seen[command]`` (no hook), the latter then followed by ``export`` for
    ``then_export[command]``; SIGTERM and SIGHUP to each of ``signalled``; a full disk
    (``disk[command]`` trials: none free, then seeded amounts within what the command adds);
    and ``once[fault]``: the commands each of immutable grades.csv, truncated results.json
    and garbage in decisions.json is tried on."""
    trials = [_planned("SIGKILL at a random moment", command, f"random-{n}", random_kill,
                       seed + n)
              for command in COMMANDS for n in range(random_kills)]
    trials += [_planned(f"SIGKILL after write {spec.split(':')[0] if ':' in spec else 'n'}",
                        command, f"after-write-{spec}", kill_after_write, spec)
               for command, specs in write_kinds.items() for spec in specs]
    trials += [_planned(f"SIGKILL when a write of {spec.rsplit(':', 1)[0]} is seen", command,
                        f"seen-{spec}", kill_on_write_seen, spec)
               for command, specs in (seen or {}).items() for spec in specs]
    trials += [_planned(f"SIGKILL when a write of {spec.rsplit(':', 1)[0]} is seen, then export",
                        command, f"then-export-{spec}", kill_then_export, spec)
               for command, specs in (then_export or {}).items() for spec in specs]
    for signum in (signal.SIGTERM, signal.SIGHUP):
        name = signal.Signals(signum).name
        trials += [_planned(f"{name} to the coordinator", command, f"{name}-{n}", terminate,
                            signum, n)
                   for command in signalled for n in range(signal_trials)]
    for command, count in disk.items():
        trials += [_planned("full disk", command, f"full-disk-{n}", full_disk_seeded, n)
                   for n in range(count)]
    faults = {"immutable grades.csv": immutable, "truncated results.json": corrupt_results,
              "garbage in decisions.json": garbage_decisions}
    for fault, commands in once.items():
        trials += [_planned(fault, command, fault.replace(" ", "-"), faults[fault])
                   for command in commands]
    return trials


def full_disk_seeded(scenario: Scenario, where: Path, ref: Reference, seed: int) -> Trial:
    """The first trial leaves no byte free; the others a seeded amount within the bytes the
    command adds (measured by its uninterrupted run)."""
    leave = 0 if seed == 0 else int(random.Random(seed).uniform(0, ref.grows))
    return full_disk(scenario, where, ref, leave)

SEEN_KINDS = {
    "autograde": ["autograded/*/results.json:1", "autograded/*/results.json:2",
                  "autograded/*/feedback.html:1", "autograded/*/feedback.html:2",
                  "versions/*:1", "grades.csv:1", "gradebook.db:1", "canvas-grades.csv:1",
                  "summary.md:1", "feedback/*:1"],
    "review set": ["decisions.json:1", "autograded/*/results.json:1",
                   "autograded/*/feedback.html:1", "grades.csv:1", "gradebook.db:1",
                   "canvas-grades.csv:1", "summary.md:1", "feedback/*:1"],
    "export": ["nbgrader-export.csv:1", "canvas-grades.csv:1", "moodle-grades.csv:1",
               "summary.md:1", "feedback/*:1", "gradebook.db:1"],
}
"""The writes a watcher kills each command on seeing (``fnmatch``: ``*`` crosses ``/``)."""


# ---------------------------------------------------------------- another next command

_THEN: dict[tuple[str, str], tuple[dict[str, object], dict[str, object]]] = {}


def then_references(scenario: Scenario, where: Path,
                    then: Callable[[Path], list[str]]) -> tuple[dict[str, object], dict[str, object]]:
    """The snapshots of ``then`` run after the whole command, and instead of it (once per
    scenario: a half-done command followed by ``then`` must end as one of the two)."""
    key = (str(scenario.base), " ".join(then(Path("root"))[3:4]))
    if key not in _THEN:
        after = copy_root(scenario.base, where / "after")
        must(run(scenario.argv(after)), scenario.name)
        must(run(then(after)), "the next command")
        before = copy_root(scenario.base, where / "before")
        must(run(then(before)), "the next command")
        _THEN[key] = (snapshot(after), snapshot(before))
    return _THEN[key]


def kill_then_export(scenario: Scenario, where: Path, ref: Reference, spec: str) -> Trial:
    """A kill as a watcher sees the write ``spec``, then not the same command again but
    ``export`` (what a TA may well run next): all or nothing, the root must end as
    ``export`` leaves it after the whole command or without it, and ``status`` agree."""
    after, before = then_references(scenario, where / "references", export_argv)
    trial = kill_on_write_seen(scenario, where / "trial", ref, spec, finish_with=False)
    trial.fault = f"{trial.fault}, then export"
    root = where / "trial" / "root"
    done = run(export_argv(root))
    if done.returncode != 0:
        trial.problems.append(f"export failed ({done.returncode}): "
                              f"{(done.stdout + done.stderr).strip()[-400:]}")
        return trial
    got = snapshot(root)
    if got not in (after, before):
        nearer = min((after, before), key=lambda want: len(differences(got, want)))
        trial.problems += differences(got, nearer, against="all or nothing has")
    states, _ = status_states(root)
    trial.problems += status_problems(states, got, before if got == before else after)
    return trial
