"""How long publishing every output of a graded root takes (issue 37), per view.

Builds a course root of ``--students`` graded results (the sample students' results, copied
under new ids, saved as the grader saves them), with a gradebook, grades.csv, feedback
copies, Canvas and Moodle files, summary.md, nbgrader's export and the report in place,
then times ``autograder.publish.views.publish`` for every student (what `autograde` ends
with) and for one (what `review set` ends with), and each view alone. A benchmark, not a
test: nothing here asserts a time.

    .venv/bin/python benchmarks/publish.py --students 1000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.base.course import RESULTS_JSON, Course  # noqa: E402
from autograder.batch.engine import BatchOptions, grade_course  # noqa: E402
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission  # noqa: E402
from autograder.publish import views  # noqa: E402
from autograder.publish.export import export_root, lms_settings  # noqa: E402
from autograder.report.build import REPORT_DIR, build_report, save_report  # noqa: E402
from autograder.report.loading import load_course  # noqa: E402
from autograder.results.result import load, save  # noqa: E402
from autograder.sandbox.limits import Limits  # noqa: E402
from autograder.views import feedback_page, gradebook, grades_csv  # noqa: E402
from tests.support.h2 import SPEC  # noqa: E402


def graded_root(root: Path, students: int) -> Course:
    """A root of ``students`` graded results: the sample students graded for real, then their
    results (and submissions) copied under new ids."""
    course = Course(root, SPEC.name)
    samples = [variant for variant in VARIANTS if variant.name in (
        "correct", "softmax_wrong_axis", "unscaled_scores", "unjudged_limitation")]
    for variant in samples:
        build_submission(root, f"sample-{variant.name}", variant)
    grade_course(course, options=BatchOptions(jobs=2, progress=False,
                                              limits=Limits(cell_timeout=10, call_timeout=5)))
    originals = [load(course.autograded(f"sample-{v.name}") / RESULTS_JSON) for v in samples]
    results = []
    for number in range(students):
        original = originals[number % len(originals)]
        student = f"s{number:05d}"
        build_submission(root, student, samples[number % len(samples)])
        result = replace(original, student=student)
        save(result, course.autograded(student) / RESULTS_JSON)
        feedback_page.save(result, course.autograded(student) / "feedback.html", SPEC)
        results.append(result)
    for variant in samples:  # only the copies: the sample ids leave the root
        for kind in ("submitted", "autograded"):
            for path in sorted((root / kind / f"sample-{variant.name}").rglob("*"), reverse=True):
                path.unlink() if path.is_file() else path.rmdir()
            (root / kind / f"sample-{variant.name}").rmdir()
    grades_csv.write(results, course.grades_csv(), SPEC)
    gradebook.record(course, results, assignment=SPEC)
    canvas, moodle = lms_settings(course, SPEC)
    export_root(course, SPEC, canvas, moodle)
    save_report(build_report(load_course(root, SPEC.name), SPEC, None), root / REPORT_DIR)
    return course


def timed(what: str, action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    print(f"  {what:<44} {seconds:7.2f} s", flush=True)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--root", type=Path, help="a root this script built before (kept): "
                        "publish it again instead of building one")
    parser.add_argument("--keep", type=Path, help="build the root here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        if args.root:
            course = Course(args.root, SPEC.name)
        else:
            course = graded_root(args.keep or Path(tmp) / "course", args.students)
        print(f"built a graded root of {args.students} students in "
              f"{time.perf_counter() - started:.1f} s (untimed below)")
        students = course.students()
        print("publish, every view:")
        done = views.Published()
        timed("feedback copies (all students)",
              lambda: views._feedback_copies(course, SPEC, students, done))
        timed("canvas, moodle, summary.md", lambda: views._lms_files(course, SPEC, done))
        timed("nbgrader-export.csv (nbgrader's CSV export)", lambda: views._nbgrader_export(course, done))
        timed("report/report.html and its CSVs", lambda: views._report(course, SPEC, done))
        total = timed("publish, all students (what autograde ends with)",
                      lambda: views.publish(course, SPEC, students))
        one = timed("publish, one student (what review set ends with)",
                    lambda: views.publish(course, SPEC, students[:1]))
        print(f"publish: {total:.2f} s for {args.students} students, {one:.2f} s after one "
              "decision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
