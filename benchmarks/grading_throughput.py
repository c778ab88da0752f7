"""Grading throughput: ``nbgrader autograde`` vs ``python -m autograder autograde``.

Run from the repository root (takes several minutes because of nbgrader)::

    .venv/bin/python benchmarks/grading_throughput.py --size 40 --json bench.json
    .venv/bin/python benchmarks/grading_throughput.py --skip-nbgrader   # ours only, quick
    .venv/bin/python benchmarks/grading_throughput.py --size 40 --no-hostile --skip-nbgrader \
        --cluster dask-local:2   # our local pool vs the same grader on a Dask LocalCluster
    .venv/bin/python benchmarks/grading_throughput.py --sizes 100,1000 --no-hostile \
        --json growth.json       # ours only, once per size: growth of the cost per submission

What it does, on one machine in one run:

1. builds a course root with ``--size`` sample submissions (``autograder.bundles.h2_attention.samples``:
   correct, buggy, broken and, unless ``--no-hostile``, hostile ones) and runs
   ``nbgrader generate_assignment`` there (untimed);
2. copies that root twice, so the two graders never see each other's outputs;
3. times ``nbgrader autograde ASSIGNMENT --force`` in one copy and ``python -m
   autograder autograde ASSIGNMENT --jobs J --no-progress`` in the other: wall clock
   around each CLI subprocess, so start-up is included for both;
4. samples each process tree every 50 ms (peak of the summed RSS, and of the summed
   PSS, which counts pages shared by forked workers once), and takes ``ru_maxrss``
   from ``wait4`` (largest single process) as a cross-check;
5. counts the CPU time (user + system) of the whole process tree. Exactly, where it can: the
   command runs in a cgroup of its own (``CpuCgroup``, root only), whose CPU accounting holds
   every descendant, reaped or not, and the kernel's work on their behalf. Otherwise an
   estimate: ``wait4``'s rusage, which holds every descendant that was waited for, plus the
   CPU, sampled from ``/proc/PID/stat``, of the processes nobody waits for (``TreeCPU``: our
   zygote ignores SIGCHLD, so the workers it forks never reach any rusage; a worker's last
   interval is missed, so it undercounts);
6. prints one table (and ``--json FILE``), our per-status counts from ``grades.csv``
   and nbgrader's scores from ``nbgrader export``.

With ``--cluster WHERE`` it also grades a third copy with ``--cluster WHERE`` and reports
the Dask path's cost against the local pool: start-up (until the first ``results.json``)
and the steady cost per submission (from the first to the last ``results.json``), both
read from the files' appearance, sampled with the memory.

With ``--sizes 100,1000`` it times only our grader, once per size on a freshly built
cohort, and prints how wall time, CPU time and memory per submission grow with the
cohort (the ratio of the per-submission figures, largest size over smallest: 1.0 =
linear). The grader does not report its end-of-batch gradebook write separately, so it
is part of the wall time, not a column.

Exit code 0 when every run completed; the 50x target (issue 17) is reported, not enforced.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.authoring.release import nbgrader_env  # noqa: E402
from autograder.base.stages import ENV as STAGES_ENV  # noqa: E402
from autograder.bundles.h2_attention import samples as sample_cohort  # noqa: E402
from benchmarks import stage_table  # noqa: E402
from tests.support.h2 import SPEC  # noqa: E402

ASSIGNMENT = SPEC.name

HOSTILE = {"infinite_loop", "monkeypatch", "reads_reference"}
TARGET_RATIO = 100.0  # issue 40: at least 100x nbgrader on the 40-submission cohort
MIB = 1024 * 1024


def _field(path: Path, key: str) -> int:
    """The number after ``key:`` in a /proc file (kB for memory fields)."""
    for line in path.read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _proc_memory(pids: list[int]) -> tuple[int, int]:
    """Summed RSS and PSS (bytes) of ``pids`` (a tree: ``tree_pids``). PSS splits pages shared
    between processes (forked workers, shared libraries), so its sum is not inflated;
    ``smaps_rollup`` gives it without listing every mapping as ``smaps`` does."""
    rss = pss = 0
    for member in pids:
        try:
            rss += _field(Path(f"/proc/{member}/status"), "VmRSS") * 1024
            pss += _field(Path(f"/proc/{member}/smaps_rollup"), "Pss") * 1024
        except OSError:
            continue
    return rss, pss


def _proc_tree(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        try:
            parents[int(entry.name)] = _field(entry / "status", "PPid")
        except (OSError, ValueError):
            continue
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in tree]
        tree.update(children)
        frontier.extend(children)
    return tree


SIGCHLD_BIT = 1 << (17 - 1)  # SIGCHLD in /proc/PID/status SigIgn (x86 and arm Linux)


def _stat(pid: int) -> tuple[int, int, float] | None:
    """(parent pid, start time in ticks, own user + system CPU seconds) from /proc/PID/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "; comm may hold spaces
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), int(fields[19]), (int(fields[11]) + int(fields[12])) / ticks


def _ignores_sigchld(pid: int) -> bool:
    """Whether ``pid``'s children are reaped by the kernel, unwaited (SIGCHLD ignored)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) & SIGCHLD_BIT)
    except OSError:
        pass
    return False


class TreeCPU:
    """CPU seconds of the processes of a tree that no rusage will ever hold.

    ``wait4`` returns the CPU of the process and of every descendant that was waited for
    (each parent adds its waited-for children's). A process reaped by the kernel because its
    parent ignores SIGCHLD (our zygote's workers), and everything below it, is in no rusage:
    its own CPU (``/proc/PID/stat`` utime + stime) is sampled here while it lives, the last
    sample counting. What such a process spends after its last sample (at most one interval)
    is missed, so the total is a slight underestimate.
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self.unwaited: dict[tuple[int, int], float] = {}  # (pid, start) -> CPU seconds

    def sample(self, pids: list[int]) -> None:
        """Take the CPU of the tree's unwaited processes (``pids``: ``tree_pids(root)``)."""
        stats = {pid: stat for pid in pids if (stat := _stat(pid)) is not None}
        ignoring: dict[int, bool] = {}  # pid -> ignores SIGCHLD
        unwaited: dict[int, bool] = {self.root: False}  # the root is ours to wait for

        def is_unwaited(pid: int) -> bool:  # its parent ignores SIGCHLD, or is unwaited itself
            if pid not in unwaited:
                parent = stats[pid][0]
                if parent not in ignoring:
                    ignoring[parent] = _ignores_sigchld(parent)
                unwaited[pid] = ignoring[parent] or (parent in stats and is_unwaited(parent))
            return unwaited[pid]

        for pid, (_, start, cpu) in stats.items():
            if is_unwaited(pid):
                self.unwaited[pid, start] = cpu

    @property
    def seconds(self) -> float:
        return sum(self.unwaited.values())


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    try:
        import psutil
    except ImportError:
        return sorted(_proc_tree(pid))
    try:
        root = psutil.Process(pid)
        return [pid, *(child.pid for child in root.children(recursive=True))]
    except psutil.Error:
        return []


class CpuCgroup:
    """A cgroup of its own for one command: the kernel accounts every process in it, including
    those nobody waits for, so its CPU is exact. cgroup v2 (``cpu.stat``) or v1 (``cpuacct``);
    ``create`` returns None where neither can be made (not root, no cgroup file system)."""

    ROOTS = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup/cpuacct"))

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls) -> CpuCgroup | None:
        for root in cls.ROOTS:
            if not ((root / "cpu.stat").exists() or (root / "cpuacct.usage").exists()):
                continue
            path = root / f"h2-bench-{os.getpid()}-{time.monotonic_ns()}"
            try:
                path.mkdir()
            except OSError:
                continue
            return cls(path)
        return None

    def enter(self) -> None:
        """In the child, before ``exec``: move into the cgroup (its descendants follow)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def seconds(self) -> float:
        if (self.path / "cpuacct.usage").exists():
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def remove(self) -> None:
        try:
            self.path.rmdir()
        except OSError:
            pass  # a straggler still in it; the empty group is removed with the next boot


def timed_run(command: list[str], cwd: Path, log: Path, results: Path | None = None,
              stages: Path | None = None) -> dict:
    """Run ``command``: wall seconds, CPU seconds of the whole tree, peak tree RSS/PSS,
    ru_maxrss of the tree, exit code; with ``results`` (a course root), when its first and
    last ``results.json`` appeared; with ``stages`` (a folder), our grader's per-stage
    totals are written there (``autograder/base/stages.py``)."""
    env = nbgrader_env() | {"MPLBACKEND": "Agg"}
    env.pop(STAGES_ENV, None)
    if stages is not None:
        shutil.rmtree(stages, ignore_errors=True)
        env[STAGES_ENV] = str(stages)
    peak_rss = peak_pss = 0
    seen: dict[str, float] = {}  # results.json -> seconds after the start when first seen
    done = threading.Event()
    group = CpuCgroup.create()
    with log.open("w") as out:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   preexec_fn=group.enter if group else None)
        cpu = TreeCPU(process.pid)

        def sample() -> None:
            # CPU every 50 ms (a worker lives about 0.1 s) unless the cgroup accounts for it;
            # memory and the results every 0.5 s: reading every process's smaps and listing a
            # thousand folders 20 times a second took a noticeable share of the 2 cores this
            # measures, and even the CPU samples alone cost about 1.5 ms a tick there.
            nonlocal peak_rss, peak_pss
            tick = 0
            while not done.is_set():
                if group is not None and tick % 10:
                    tick += 1
                    done.wait(0.05)
                    continue
                pids = tree_pids(process.pid)
                if group is None:
                    cpu.sample(pids)
                if tick % 10 == 0:
                    rss, pss = _proc_memory(pids)
                    peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
                    if results is not None:
                        now = time.perf_counter() - started
                        for path in results.glob(f"autograded/*/{ASSIGNMENT}/results.json"):
                            seen.setdefault(str(path), now)
                tick += 1
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)  # rusage of this child and its reaped tree
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    times = sorted(seen.values())
    waited_cpu = usage.ru_utime + usage.ru_stime
    exact_cpu = None
    if group is not None:
        exact_cpu = group.seconds()
        group.remove()
    return {
        "seconds": seconds,
        "cpu_seconds": exact_cpu if exact_cpu is not None else waited_cpu + cpu.seconds,
        "cpu_source": "cgroup" if exact_cpu is not None else "rusage + samples",
        "cpu_seconds_waited": waited_cpu,  # wait4's rusage alone
        "cpu_seconds_unwaited": None if group else cpu.seconds,  # sampled without a cgroup
        "first_result_s": times[0] if times else None,
        "last_result_s": times[-1] if times else None,
        "steady_s_per_submission": ((times[-1] - times[0]) / (len(times) - 1)
                                    if len(times) > 1 else None),
        "peak_tree_rss_mib": peak_rss / MIB,
        "peak_tree_pss_mib": peak_pss / MIB,
        "ru_maxrss_mib": usage.ru_maxrss / 1024,  # KiB on Linux
        "returncode": process.returncode,
        "log": str(log),
    }


def build_course(root: Path, size: int, hostile: bool) -> dict[str, str]:
    """``size`` sample submissions in ``root``, cycling through the (filtered) variants."""
    if hostile:
        return sample_cohort.build_sample_cohort(root, size)
    variants = [v for v in sample_cohort.VARIANTS if v.name not in HOSTILE]
    roster = {}
    for number in range(size):
        variant = variants[number % len(variants)]
        student = f"s{number + 1:03d}-{variant.name.replace('_', '-')}"
        sample_cohort.build_submission(root, student, variant)
        roster[student] = variant.name
    shutil.copytree(SPEC.source_dir, root / "source" / ASSIGNMENT)
    return roster


def nbgrader(root: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "nbgrader",
        *args,
        f"--CourseDirectory.root={root}",
        f"--CourseDirectory.db_url=sqlite:///{root / 'gradebook.db'}",
    ]


def nbgrader_scores(root: Path) -> dict[str, float]:
    """Total score per student from ``nbgrader export`` (empty if the export fails)."""
    target = root / "nbgrader-export.csv"
    subprocess.run(
        nbgrader(root, "export", f"--to={target}"),
        cwd=root,
        env=nbgrader_env(),
        capture_output=True,
        check=False,
    )
    if not target.exists():
        return {}
    with target.open() as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


def _sizes(text: str) -> list[int]:
    """``--sizes``: comma-separated positive cohort sizes, smallest first."""
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not comma-separated numbers: {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"sizes must be positive numbers: {text!r}")
    return sizes


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="Run from the repository root; see benchmarks/README.md.")
    cohort = parser.add_mutually_exclusive_group()
    cohort.add_argument("--size", type=int, default=40,
                        help="submissions in the cohort (default: %(default)s)")
    cohort.add_argument("--sizes", type=_sizes, metavar="N,N,...",
                        help="growth run: time only our grader (implies --skip-nbgrader), once "
                        "per size on a freshly built cohort, and compare the cost per "
                        "submission (e.g. 100,1000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="our --jobs")
    parser.add_argument("--workdir", type=Path, help="keep everything here (default: a temp dir)")
    parser.add_argument("--no-hostile", action="store_true", help="no infinite loop etc.")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time only our grader")
    parser.add_argument("--timeout", type=int, default=30, help="nbgrader's cell timeout (s)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--no-stages", action="store_true",
                        help="do not measure our grader's stages (the per-stage table)")
    parser.add_argument("--record", action="store_true",
                        help="keep the figures as this revision's in benchmarks/figures/")
    parser.add_argument("--cluster", metavar="WHERE",
                        help="also time ours with --cluster WHERE (e.g. dask-local:2); "
                        "not with --sizes")
    return parser


def _prepare(root: Path, size: int, hostile: bool) -> dict[str, str] | None:
    """A course root with ``size`` sample submissions and the generated assignment (untimed):
    the roster (student -> variant), or None when ``nbgrader generate_assignment`` failed."""
    roster = build_course(root, size, hostile=hostile)
    prepared = subprocess.run(
        nbgrader(root, "generate_assignment", ASSIGNMENT, "--force"),
        cwd=root,
        env=nbgrader_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if prepared.returncode != 0:
        print(f"nbgrader generate_assignment failed:\n{prepared.stderr[-3000:]}", file=sys.stderr)
        return None
    return roster


def _ours_command(root: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "autograder", "autograde", ASSIGNMENT, "--root", str(root),
            "--jobs", str(jobs), "--no-progress"]


def _per_submission(run: dict, size: int) -> None:
    """Add the per-submission figures of a run of ``size`` submissions."""
    run["throughput_per_min"] = size / run["seconds"] * 60
    run["ms_per_submission"] = run["seconds"] / size * 1000
    run["cpu_ms_per_submission"] = run["cpu_seconds"] / size * 1000


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.sizes and args.cluster:
        parser.error("--cluster cannot be combined with --sizes")

    work = (args.workdir or Path(tempfile.mkdtemp(prefix="h2-bench-"))).resolve()
    if args.sizes:
        return _growth(args, work)
    base, ours_root, nb_root = work / "base", work / "ours", work / "nbgrader"
    cluster_root = work / "ours-cluster"
    for stale in (base, ours_root, nb_root, cluster_root):  # from an earlier run in --workdir
        shutil.rmtree(stale, ignore_errors=True)
    roster = _prepare(base, args.size, hostile=not args.no_hostile)
    if roster is None:
        return 2
    shutil.copytree(base, ours_root)
    figures: dict = {
        "size": args.size,
        "jobs": args.jobs,
        "cores": os.cpu_count(),
        "variants": dict(Counter(roster.values())),
        "workdir": str(work),
    }

    ours_cmd = _ours_command(ours_root, args.jobs)
    figures["ours"] = ours = timed_run(ours_cmd, REPO, work / "ours.log", ours_root,
                                       None if args.no_stages else work / "stages")
    scores = _our_outcome(ours, ours_root, args.size)

    cluster: dict | None = None
    if args.cluster:
        shutil.copytree(base, cluster_root)
        cluster_cmd = [*ours_cmd, "--cluster", args.cluster]
        cluster_cmd[cluster_cmd.index(str(ours_root))] = str(cluster_root)
        figures["ours_cluster"] = cluster = timed_run(cluster_cmd, REPO, work / "cluster.log",
                                                      cluster_root)
        cluster["cluster"] = args.cluster
        cluster_scores = _our_outcome(cluster, cluster_root, args.size)
        cluster["same_totals_as_local"] = cluster_scores == scores
        if ours["steady_s_per_submission"] and cluster["steady_s_per_submission"]:
            figures["cluster_overhead"] = {
                "start_up_s": cluster["first_result_s"] - ours["first_result_s"],
                "per_submission_s": (cluster["steady_s_per_submission"]
                                     - ours["steady_s_per_submission"]),
                "wall_per_submission_s": (cluster["seconds"] - ours["seconds"]) / args.size,
            }

    nb: dict | None = None
    if not args.skip_nbgrader:
        shutil.copytree(base, nb_root)
        nb_cmd = nbgrader(
            nb_root, "autograde", ASSIGNMENT, "--force", f"--Execute.timeout={args.timeout}"
        )
        figures["nbgrader"] = nb = timed_run(nb_cmd, nb_root, work / "nbgrader.log")
        graded = list((nb_root / "autograded").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"))
        nb["autograded_notebooks"] = len(graded)
        nb["completed"] = bool(graded)
        nb_scores = nbgrader_scores(nb_root)
    else:
        nb_scores = {}

    by_variant: dict[str, list[str]] = {}
    for student, variant in roster.items():
        by_variant.setdefault(variant, []).append(student)
    figures["scores_by_variant"] = {
        variant: {
            "n": len(students),
            "ours_mean": _mean([scores[s] for s in students if s in scores]),
            "nbgrader_mean": _mean([nb_scores[s] for s in students if s in nb_scores]),
        }
        for variant, students in by_variant.items()
    }
    for run in (ours, nb, cluster):
        if run is not None:
            _per_submission(run, args.size)
    if nb is not None:
        figures["ratio"] = nb["seconds"] / ours["seconds"]
    _print_report(figures, ours, nb, cluster)
    _stages(ours, work / "stages", args.size, None if args.no_stages else f"size-{args.size}",
            args.record, {"ratio": figures.get("ratio"), "nbgrader_seconds":
                          nb["seconds"] if nb else None})
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    completed = [run["completed"] for run in (ours, nb, cluster) if run is not None]
    return 0 if all(completed) else 1


def _growth(args: argparse.Namespace, work: Path) -> int:
    """``--sizes``: our grader alone, once per size on a fresh cohort; the growth table."""
    runs = []
    for size in args.sizes:
        root = work / f"size-{size}"
        shutil.rmtree(root, ignore_errors=True)  # from an earlier run in --workdir
        if _prepare(root, size, hostile=not args.no_hostile) is None:
            return 2
        stages = None if args.no_stages else work / f"stages-{size}"
        run = timed_run(_ours_command(root, args.jobs), REPO, work / f"ours-{size}.log",
                        stages=stages)
        _our_outcome(run, root, size)
        _per_submission(run, size)
        _stages(run, stages, size, stages and f"growth-{size}", args.record)
        runs.append({"size": size, **run})
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)
    smallest, largest = runs[0], runs[-1]
    figures = {
        "sizes": args.sizes,
        "jobs": args.jobs,
        "cores": os.cpu_count(),
        "hostile": not args.no_hostile,
        "workdir": str(work),
        "runs": runs,
        # per-submission cost, largest size over smallest: 1.0 = linear in the cohort size
        "growth_wall": largest["ms_per_submission"] / smallest["ms_per_submission"],
        "growth_cpu": largest["cpu_ms_per_submission"] / smallest["cpu_ms_per_submission"],
    }
    _print_growth(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(run["completed"] for run in runs) else 1


def _stages(run: dict, folder: Path | None, size: int, kind: str | None, keep: bool,
            extra: dict | None = None) -> None:
    """Print the per-stage table of ``run`` (its stage files in ``folder``), add it to the
    run's figures, and with ``keep`` record them as this revision's ``kind``."""
    if kind is None or folder is None or not folder.is_dir():
        return
    tree = run["cpu_seconds"] if run["cpu_source"] == "cgroup" else None
    table = stage_table.rows(stage_table.collect(folder), tree)
    stage_table.print_table(table, size, run["seconds"], tree)
    run["stage_rows"] = table
    if keep:
        kept = {key: run[key] for key in ("seconds", "cpu_seconds", "cpu_source",
                                          "peak_tree_pss_mib", "first_result_s", "statuses")}
        path = stage_table.record(kind, {"size": size, **kept, **(extra or {}),
                                         "stage_rows": table})
        print(f"kept as {kind} in {path.relative_to(REPO)}")


def _print_growth(figures: dict) -> None:
    runs = figures["runs"]
    print(f"\ngrowth: ours only, a fresh cohort per size  jobs={figures['jobs']}  "
          f"cores={figures['cores']}  hostile={figures['hostile']}")
    print("ms/subm = wall ms per submission; CPU = user+system of the whole process tree; "
          "peak PSS of the tree (MiB)")
    print(f"{'size':>6}{'seconds':>9}{'ms/subm':>9}{'CPU s':>8}{'CPU ms/subm':>12}"
          f"{'peak PSS':>10}{'exit':>6}  statuses")
    for run in runs:
        print(f"{run['size']:>6}{run['seconds']:>9.1f}{run['ms_per_submission']:>9.0f}"
              f"{run['cpu_seconds']:>8.1f}{run['cpu_ms_per_submission']:>12.0f}"
              f"{run['peak_tree_pss_mib']:>10.0f}{run['returncode']:>6}  {run['statuses']}")
    print(f"per submission, {runs[0]['size']} -> {runs[-1]['size']}: wall "
          f"{figures['growth_wall']:.2f}x, CPU {figures['growth_cpu']:.2f}x (1.00 = linear)")
    print(f"logs: {figures['workdir']}")


def _our_outcome(run: dict, root: Path, size: int) -> dict[str, float]:
    """Statuses and completeness of one of our runs (from its grades.csv); its totals."""
    grades_csv = root / "grades.csv"
    rows = list(csv.DictReader(grades_csv.open())) if grades_csv.exists() else []
    run["statuses"] = dict(Counter(row["status"] for row in rows))
    run["completed"] = len(rows) == size
    return {row["student"]: float(row["total"]) for row in rows if row["total"]}  # "": ungradable


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def _print_report(figures: dict, ours: dict, nb: dict | None, cluster: dict | None) -> None:
    size = figures["size"]
    print(
        f"\nN={size}  jobs={figures['jobs']}  cores={figures['cores']}  "
        f"variants={figures['variants']}"
    )
    print("memory: peak over the process tree (RSS and PSS summed); max RSS = ru_maxrss (MiB)")
    print("CPU: user+system seconds of the whole process tree, and per submission (ms)")
    print(
        f"{'grader':<10}{'seconds':>9}{'subm/min':>10}{'CPU s':>8}{'CPU ms/subm':>12}"
        f"{'peak RSS':>10}{'peak PSS':>10}{'max RSS':>9}{'exit':>6}"
    )
    for name, run in (("nbgrader", nb), ("ours", ours), ("cluster", cluster)):
        if run is not None:
            print(
                f"{name:<10}{run['seconds']:>9.1f}{run['throughput_per_min']:>10.1f}"
                f"{run['cpu_seconds']:>8.1f}{run['cpu_ms_per_submission']:>12.0f}"
                f"{run['peak_tree_rss_mib']:>10.0f}{run['peak_tree_pss_mib']:>10.0f}"
                f"{run['ru_maxrss_mib']:>9.0f}{run['returncode']:>6}"
            )
    if nb is not None:
        met = "met" if figures["ratio"] >= TARGET_RATIO else "NOT met"
        print(f"ratio nbgrader/ours: {figures['ratio']:.1f}x  ({TARGET_RATIO:g}x target {met})")
        print(f"nbgrader autograded notebooks: {nb['autograded_notebooks']}/{size}")
    print(f"our statuses (grades.csv): {ours['statuses']}")
    if cluster is not None:
        print(f"cluster = ours --cluster {cluster['cluster']}: statuses {cluster['statuses']}, "
              f"same totals as the local pool: {cluster['same_totals_as_local']}")
        for name, run in (("ours", ours), ("cluster", cluster)):
            print(f"  {name:<8} first result after {_fmt_s(run['first_result_s'])}, then "
                  f"{_fmt_s(run['steady_s_per_submission'])} per submission")
        overhead = figures.get("cluster_overhead")
        if overhead:
            print(f"  cluster overhead: start-up {overhead['start_up_s']:+.1f} s, "
                  f"{overhead['per_submission_s'] * 1000:+.0f} ms per submission (steady), "
                  f"{overhead['wall_per_submission_s'] * 1000:+.0f} ms per submission (wall)")
    print(f"{'variant':<24}{'n':>3}{'ours mean':>11}{'nbgrader mean':>15}")
    for variant, row in figures["scores_by_variant"].items():
        print(
            f"{variant:<24}{row['n']:>3}{_fmt(row['ours_mean']):>11}"
            f"{_fmt(row['nbgrader_mean']):>15}"
        )
    print(f"logs: {figures['workdir']}")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


if __name__ == "__main__":
    raise SystemExit(main())
