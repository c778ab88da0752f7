"""Where one submission's grading time goes, in the trusted grading process.

Run from the repository root::

    .venv/bin/python benchmarks/profile_grading.py --size 300
    .venv/bin/python benchmarks/profile_grading.py --size 100 --no-cprofile --top 30

It builds ``--size`` sample submissions (``autograder.bundles.h2_attention.samples``, the
non-hostile variants, as ``grading_throughput.py --no-hostile`` does), starts one
``GradingSession`` (warm zygote, checks collected) and grades them one after the other in
this process, as one grading process of ``autograde`` does (``_grade_and_save``: load,
grade, write ``results.json`` and ``feedback.html``), then writes ``grades.csv`` and the
gradebook as the end of a batch does. Start-up is not counted.

Pass 1 times each phase with wrappers (no profiler running): loading the notebook, the
evidence file, forking the worker and running the student's cells in it, the checks and
their round trips to the worker, the provenance checks (also round trips), writing the
outputs, and the end of the batch. A round trip is timed from send to validated reply, so
it includes the student's own computation in the worker; ``has`` round trips (no student
code runs) show the bare transport cost. Pass 2 (unless ``--no-cprofile``) grades the same
submissions again under ``cProfile`` and prints the top functions by cumulative time
(profiler overhead included: read them as shares, not absolute figures).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.assignments import load_assignment  # noqa: E402
from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course  # noqa: E402
from autograder.batch.outcome import mark_submission_time  # noqa: E402
from autograder.bundles.h2_attention import samples as sample_cohort  # noqa: E402
from autograder.grading import grade_one  # noqa: E402
from autograder.grading.submission import load_submission  # noqa: E402
from autograder.results.result import STATUS_ERROR, save  # noqa: E402
from autograder.sandbox import client, zygote  # noqa: E402
from autograder.views import feedback_page, gradebook, grades_csv  # noqa: E402

SPEC = load_assignment("h2_attention")  # the assignment profiled (the demo cohort's)
HOSTILE = {"infinite_loop", "monkeypatch", "reads_reference"}


class Timers:
    """Inclusive wall time and call counts per phase name."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.current: list[str] = []  # the enclosing grade_one phase (checks / provenance)

    def wrap(self, name: str, function: Callable, *, scope: bool = False) -> Callable:
        def timed(*args: object, **kwargs: object) -> object:
            if scope:
                self.current.append(name)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started
                self.calls[name] += 1
                if scope:
                    self.current.pop()

        return timed

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] += seconds
        self.calls[name] += 1


def instrument(timers: Timers) -> None:
    """Wrap the phases of ``grade_submission`` and the sandbox client (this process only)."""
    evidence = SPEC.evidence  # the assignment's evidence plugin: its methods, timed
    for owner, name, label, scope in [
        (evidence, "verify", "evidence: verify_evidence", False),
        (grade_one, "run_checks", "checks: run_checks", True),
        (evidence, "provenance", "provenance: check_provenance", True),
        (evidence, "part_scores", "evidence: part scores", False),
    ]:
        setattr(owner, name, timers.wrap(label, getattr(owner, name), scope=scope))
    student = client.SandboxStudent
    student._spawn = timers.wrap("sandbox: fork worker (zygote)", student._spawn)
    student._run_cells = timers.wrap("sandbox: run student cells", student._run_cells)
    student.close = timers.wrap("sandbox: kill worker (signal only)", student.close)
    zygote.Zygote.settle = timers.wrap(SETTLE, zygote.Zygote.settle)
    request = student._request

    def counted(self: client.SandboxStudent, header: dict, *args: object, **kwargs: object):
        started = time.perf_counter()
        try:
            return request(self, header, *args, **kwargs)
        finally:
            where = timers.current[-1].split(":")[0] if timers.current else "other"
            timers.add(f"round trip [{where}, {type(header).__name__}]", time.perf_counter() - started)

    student._request = counted


def build(root: Path, size: int) -> list[str]:
    variants = [v for v in sample_cohort.VARIANTS if v.name not in HOSTILE]
    students = []
    for number in range(size):
        variant = variants[number % len(variants)]
        student = f"s{number + 1:03d}-{variant.name.replace('_', '-')}"
        sample_cohort.build_submission(root, student, variant)
        students.append(student)
    shutil.copytree(SPEC.source_dir, root / "source" / SPEC.name)
    return students


def grade_all(course: Course, students: list[str], session: grade_one.GradingSession,
              timers: Timers) -> list:
    """What one grading process does per submission (``engine._grade_and_save``), timed."""
    results = []
    for student in students:
        folder = course.submitted(student)
        out = course.autograded(student)
        t0 = time.perf_counter()
        submission = load_submission(folder, student, assignment=SPEC)
        t1 = time.perf_counter()
        result = grade_one.grade_submission(submission, session)
        t2 = time.perf_counter()
        mark_submission_time(result, folder, None)
        save(result, out / RESULTS_JSON)
        t3 = time.perf_counter()
        feedback_page.save(result, out / FEEDBACK_HTML, SPEC)
        t4 = time.perf_counter()
        timers.add("load submission (read, parse notebook, hash)", t1 - t0)
        timers.add("grade_submission (total)", t2 - t1)
        timers.add("write results.json", t3 - t2)
        timers.add("write feedback.html (render template)", t4 - t3)
        timers.add("per submission (total)", t4 - t0)
        results.append(result)
    return results


def end_of_batch(course: Course, results: list, timers: Timers) -> None:
    started = time.perf_counter()
    grades_csv.write(results, course.grades_csv(), SPEC)
    timers.add("end of batch: grades.csv", time.perf_counter() - started)
    started = time.perf_counter()
    gradebook.prepare(course, assignment=SPEC).join()  # in a batch this runs in a thread while grading
    timers.add("end of batch: gradebook prepare (thread, overlapped)", time.perf_counter() - started)
    started = time.perf_counter()
    gradebook.record(course, [r for r in results if r.status != STATUS_ERROR], assignment=SPEC)
    timers.add("end of batch: gradebook record", time.perf_counter() - started)


SETTLE = "sandbox: wait for the previous worker's teardown, rm its scratch"
INSIDE_GRADE_SUBMISSION = [
    "evidence: verify_evidence",
    SETTLE,
    "sandbox: fork worker (zygote)",
    "sandbox: run student cells",
    "checks: run_checks",
    "provenance: check_provenance",
    "sandbox: kill worker (signal only)",
    "evidence: part scores",
]
ORDER = [
    "load submission (read, parse notebook, hash)",
    *INSIDE_GRADE_SUBMISSION,
    "grade_submission: the rest",
    "write results.json",
    "write feedback.html (render template)",
]


def report(timers: Timers, size: int) -> None:
    s = timers.seconds
    s["sandbox: fork worker (zygote)"] -= s[SETTLE]  # settle runs first thing in the fork
    s["grade_submission: the rest"] = s["grade_submission (total)"] - sum(
        s[name] for name in INSIDE_GRADE_SUBMISSION)
    total = s["per submission (total)"]
    print(f"\nPer-submission phases ({size} submissions, {total:.2f} s, "
          f"{1000 * total / size:.1f} ms per submission):\n")
    print("| phase | share | ms per submission |\n|---|---:|---:|")
    for name in ORDER:
        print(f"| {name} | {100 * s[name] / total:.1f}% | {1000 * s[name] / size:.1f} |")
    print(f"| **total** | 100% | {1000 * total / size:.1f} |")
    print("\nRound trips to the worker (send to validated reply; includes the student's own "
          "computation):\n")
    print("| round trips | per submission | mean ms each | ms per submission |\n|---|---:|---:|---:|")
    trips = sorted(name for name in s if name.startswith("round trip"))
    for name in trips:
        n = timers.calls[name]
        print(f"| {name[len('round trip '):]} | {n / size:.1f} | {1000 * s[name] / n:.2f} | "
              f"{1000 * s[name] / size:.1f} |")
    n = sum(timers.calls[name] for name in trips)
    t = sum(s[name] for name in trips)
    if n:
        print(f"| **all** | {n / size:.1f} | {1000 * t / n:.2f} | {1000 * t / size:.1f} |")
    print(f"\nCells run per submission: {timers.calls['sandbox: run student cells'] / size:.2f} runs "
          f"of the notebook; workers forked: {timers.calls['sandbox: fork worker (zygote)'] / size:.2f}")
    print("\nEnd of the batch (once):\n\n| step | seconds |\n|---|---:|")
    for name in sorted(x for x in s if x.startswith("end of batch")):
        print(f"| {name[len('end of batch: '):]} | {s[name]:.3f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300, help="submissions (default 300)")
    parser.add_argument("--top", type=int, default=25, help="functions listed by cProfile")
    parser.add_argument("--no-cprofile", action="store_true", help="skip the cProfile pass")
    parser.add_argument("--sort", default="cumulative", choices=["cumulative", "tottime"],
                        help="order of the cProfile listing (default cumulative)")
    parser.add_argument("--workdir", type=Path, help="keep the course root here")
    args = parser.parse_args(argv)

    root = args.workdir or Path(tempfile.mkdtemp(prefix="h2-profile-"))
    try:
        students = build(root, args.size)
        course = Course(root, SPEC.name)
        started = time.perf_counter()
        session = grade_one.GradingSession.start(SPEC)
        print(f"start-up (zygote, imports, collection; not counted): "
              f"{time.perf_counter() - started:.1f} s; load average {os.getloadavg()[0]:.2f}")
        try:
            timers = Timers()
            instrument(timers)
            cpu = time.process_time()
            results = grade_all(course, students, session, timers)
            cpu = time.process_time() - cpu
            end_of_batch(course, results, timers)
            report(timers, args.size)
            print(f"\nCPU time of this (trusted) process while grading: {1000 * cpu / args.size:.1f} ms "
                  f"per submission; the rest of the wall time is waiting for the worker.")
            errors = [r.reason for r in results if r.status == STATUS_ERROR][:1]
            print(f"Statuses: {dict(Counter(r.status for r in results))} {errors}; "
                  f"load average after: {os.getloadavg()[0]:.2f}")
            if not args.no_cprofile:
                profiler = cProfile.Profile()
                profiler.enable()
                grade_all(course, students, session, Timers())
                profiler.disable()
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out)
                stats.sort_stats(args.sort).print_stats(args.top)
                print(f"\nTop {args.top} functions by {args.sort} time (cProfile, second pass):")
                print(out.getvalue())
        finally:
            session.close()
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
