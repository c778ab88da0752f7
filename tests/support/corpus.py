"""Build submissions for the grading tests: reference, stubs, buggy corpus, hostile code.

A corpus module in ``tests/h2_attention/buggy/`` overrides one or two reference functions.
Its submission is the reference's source text followed by the module's own
definitions (its ``from solutions... import *`` line removed), so nothing is
imported from ``solutions`` inside the student namespace and the buggy
definitions replace the reference ones, just as a later notebook cell would.

A module declares ``EXPECTED_PART`` (the function the bug lives in: it must lose
points), ``EXPECTED_DIAGNOSIS`` (the misconception code that part must report, or
``None`` for a bug no code describes: then the part must report no diagnosis at all)
and ``ALSO_AFFECTS`` (the other parts that lose points; every other part keeps all).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout
REFERENCE = ROOT / "solutions" / "attention.py"
BUGGY_DIR = ROOT / "tests" / "h2_attention" / "buggy"
# Bugs that hang or end the process: graded in the sandbox only
# (tests/h2_attention/checks/test_corpus_stops.py).
STOPS_DIR = ROOT / "tests" / "h2_attention" / "buggy_stops"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from autograder.grading import CheckResult, run_checks, score_parts  # noqa: E402
from autograder.grading.scoring import PartScore  # noqa: E402
from tests.support.h2 import H2  # noqa: E402
from tests.support.in_process import InProcessStudent  # noqa: E402
from tests.support.said import said  # noqa: E402


def reference_source() -> str:
    """The reference module's text, as a one-cell submission."""
    return REFERENCE.read_text(encoding="utf-8")


def stub_source() -> str:
    """Every public function with its body replaced by ``raise NotImplementedError()``."""
    tree = ast.parse(reference_source())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            doc = ast.get_docstring(node)
            body: list[ast.stmt] = [ast.Expr(ast.Constant(doc))] if doc else []
            node.body = body + [ast.parse("raise NotImplementedError()").body[0]]
    return ast.unparse(ast.fix_missing_locations(tree))


def override_source(module_source: str) -> str:
    """The reference followed by a corpus module without its imports from ``solutions``."""
    tree = ast.parse(module_source)
    tree.body = [
        node for node in tree.body
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("solutions", "__future__"))
    ]
    return reference_source() + "\n\n# ---- override ----\n" + ast.unparse(tree) + "\n"


@dataclass(frozen=True)
class BuggyCase:
    """One corpus module and what the grader must say about it."""

    name: str
    source: str
    expected_part: str
    expected_diagnosis: str | None  # None: a bug no misconception code describes
    also_affects: frozenset[str]


def buggy_cases(directory: Path = BUGGY_DIR) -> list[BuggyCase]:
    """Every module in ``directory``, ``tests/h2_attention/buggy`` by default (sorted by name)."""
    cases = []
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        text = path.read_text(encoding="utf-8")
        meta = _metadata(text)
        cases.append(BuggyCase(
            name=path.stem,
            source=override_source(text),
            expected_part=meta["EXPECTED_PART"],
            expected_diagnosis=meta["EXPECTED_DIAGNOSIS"],
            also_affects=frozenset(meta.get("ALSO_AFFECTS", set())),
        ))
    return cases


def _metadata(text: str) -> dict:
    """Module-level literal assignments (EXPECTED_PART...), read without importing."""
    meta = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id.isupper():
                meta[node.targets[0].id] = ast.literal_eval(node.value)
    return meta


@cache
def check_results(source: str) -> tuple[CheckResult, ...]:
    """Every hidden check's verdict on a one-cell submission, graded in this process
    (cached: grading is deterministic)."""
    return tuple(run_checks(InProcessStudent(source), H2))


@cache
def grade_source(source: str) -> dict[str, PartScore]:
    """Part scores of a one-cell submission (cached: grading is deterministic)."""
    return score_parts(check_results(source), H2)


def failed_checks(case: BuggyCase) -> set[str]:
    """Names of the hidden checks ``case`` does not pass (``CheckResult.name``)."""
    return {result.name for result in check_results(case.source) if result.status != "passed"}


def verdicts(results: Iterable[CheckResult]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    """What a grade is made of, per check: name, status, points and diagnoses (messages
    are left out: the sandbox makes student text safe, so their wording may differ)."""
    return [(r.name, r.status, r.points, r.diagnoses) for r in results]


def detection(
    case: BuggyCase, scores: dict[str, PartScore] | None = None,
) -> tuple[bool, list[str]]:
    """Whether the grader caught ``case`` as declared (in ``scores``, by default graded in
    this process), and the problems if not."""
    scores = grade_source(case.source) if scores is None else scores
    problems = []
    target = scores[case.expected_part]
    if target.points >= target.max_points:
        problems.append(f"{case.expected_part} kept full points")
    if case.expected_diagnosis is None:
        if target.diagnoses:
            problems.append(f"{case.expected_part} diagnoses {target.diagnoses}, none declared")
    elif case.expected_diagnosis not in target.diagnoses:
        problems.append(f"{case.expected_part} diagnoses {target.diagnoses}, not {case.expected_diagnosis}")
    for part, score in scores.items():
        if part == case.expected_part:
            continue
        lost = score.points < score.max_points
        if lost and part not in case.also_affects:
            problems.append(f"{part} lost points ({score.points}/{score.max_points}): {said(score.messages)}")
        if not lost and part in case.also_affects:
            problems.append(f"{part} is declared in ALSO_AFFECTS but kept full points")
    return not problems, problems


if __name__ == "__main__":  # PYTHONPATH=. python tests/support/corpus.py
    cases = buggy_cases()
    caught = 0
    for case in cases:
        ok, problems = detection(case)
        caught += ok
        print(("ok   " if ok else "MISS ") + case.name + ("" if ok else f": {problems}"))
    print(f"corpus {len(cases)}, detected {caught}/{len(cases)} = {caught / max(len(cases), 1):.0%}")
