"""Grading whole submissions: reference, stubs, missing or failing parts, hostile results, speed."""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap

import pytest

from autograder.grading import (
    GradingError,
    PartScore,
    diagnoses,
    merge_part_scores,
    run_checks,
    score_parts,
    total,
)
from autograder.grading.plugin import GENERIC_MESSAGE
from autograder.grading.runner import collect_checks, own_pytest_environment
from autograder.spec import parse_spec
from tests.support.corpus import (
    BUGGY_DIR,
    grade_source,
    override_source,
    reference_source,
    stub_source,
)
from tests.support.h2 import H2, SPEC
from tests.support.in_process import InProcessStudent
from tests.support.notebook_cells import code_cells
from tests.support.pytest_session import CheckPlugin
from tests.support.said import said
from tests.support.skips import needs

PART_POINTS = SPEC.function_points
ONE_FUNCTION_SPEC = """
name = "one"
notebook = "one.ipynb"
schema = "one.schema.json"
cohort_file = "one.json"
grade_cell_prefix = "grade_"
total = 4

[[parts]]
name = "x"
kind = "function"
points = 2

[[parts]]
name = "evidence"
kind = "evidence"
points = 1
sections = { identity = 1 }

[[parts]]
name = "limitation"
kind = "limitation"
points = 1
"""


def notebook_points() -> dict[str, int]:
    """The points on each function part's grade cell, as the release notebook shows them."""
    cells = {cell["metadata"]["nbgrader"]["grade_id"]: cell["metadata"]["nbgrader"]
             for cell in json.loads(SPEC.release_notebook.read_text(encoding="utf-8"))["cells"]
             if cell["metadata"].get("nbgrader", {}).get("grade")}
    return {part: cells[SPEC.part(part).grade_cell]["points"] for part in SPEC.function_parts}


@pytest.fixture(scope="module")
def reference_results():
    return run_checks(InProcessStudent(reference_source()), H2)


def test_part_points_match_the_notebook(reference_results):
    shown = notebook_points()
    assert PART_POINTS == shown
    assert sum(SPEC.part_points.values()) == 100
    available: dict[str, int] = {}
    for result in reference_results:
        available[result.part] = available.get(result.part, 0) + result.max_points
    assert available == shown


def test_every_part_has_several_checks_for_partial_credit(reference_results):
    for part in PART_POINTS:
        checks = [r for r in reference_results if r.part == part]
        assert len(checks) >= 3, part
        assert max(r.max_points for r in checks) < PART_POINTS[part], part
    names = [r.name for r in reference_results]
    assert len(names) == len(set(names))


def test_reference_scores_full_marks(reference_results):
    failed = [r for r in reference_results if r.status != "passed"]
    assert failed == []
    scores = score_parts(reference_results, H2)
    assert total(scores) == (78, 78)
    assert all(not said(s.messages) and not s.diagnoses for s in scores.values())


def test_stubs_score_zero_everywhere_with_the_exception_stated_once():
    scores = grade_source(stub_source())
    assert list(scores) == list(PART_POINTS)
    for part, score in scores.items():
        assert score.points == 0, part
        assert len(said(score.messages)) == 1, (part, said(score.messages))
        assert "NotImplementedError" in said(score.messages)[0]
        assert part in said(score.messages)[0]


RELEASE_NOTEBOOK = SPEC.release_notebook


@pytest.mark.skipif(not RELEASE_NOTEBOOK.exists(),
                    reason=needs("release notebook not generated yet", "make release"))
def test_untouched_release_notebook_scores_zero_on_every_code_part():
    student = InProcessStudent(code_cells(RELEASE_NOTEBOOK, skip_grade_cells=True))
    scores = score_parts(run_checks(student, H2), H2)
    for part, score in scores.items():
        assert score.points == 0, part
        assert len(said(score.messages)) == 1 and "NotImplementedError" in said(score.messages)[0], (part, said(score.messages))


def test_missing_functions_score_zero():
    scores = grade_source("import numpy as np\n")
    for score in scores.values():
        assert score.points == 0
        assert len(said(score.messages)) == 1 and "not found" in said(score.messages)[0]


def test_a_raising_function_costs_only_its_own_part():
    source = override_source("def causal_mask(n_q, n_k=None):\n    raise ZeroDivisionError('oops')\n")
    scores = grade_source(source)
    assert scores["causal_mask"].points == 0
    assert said(scores["causal_mask"].messages) == ("`causal_mask` raised ZeroDivisionError: oops",)
    assert all(s.points == s.max_points for p, s in scores.items() if p != "causal_mask")


def test_a_broken_cell_elsewhere_does_not_cost_other_parts():
    student = InProcessStudent([reference_source(), "raise RuntimeError('demo cell broke')"])
    scores = score_parts(run_checks(student, H2), H2)
    assert total(scores) == (78, 78)


HOSTILE = '''
import numpy as np

class AlwaysEqual(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), dtype=bool)
    def __array_ufunc__(self, *args, **kwargs):
        return np.ones(1, dtype=bool)
    def __array_function__(self, *args, **kwargs):
        return True

def stable_softmax(scores, mask=None, temperature=1.0):
    return np.full(np.shape(scores), -1.0).view(AlwaysEqual)

class Anything:
    def __eq__(self, other):
        return True

def causal_mask(n_q, n_k=None):
    return Anything()
'''


def test_hostile_results_earn_nothing():
    scores = grade_source(override_source(HOSTILE))
    assert scores["stable_softmax"].points == 0
    assert scores["causal_mask"].points == 0
    assert "not plain data" in said(scores["causal_mask"].messages)[0]
    untouched = set(PART_POINTS) - {"stable_softmax", "causal_mask", "scaled_dot_product_attention", "value_intervention"}
    assert all(scores[p].points == scores[p].max_points for p in untouched)


def test_grading_is_deterministic():
    source = override_source((BUGGY_DIR / "torch_dropout.py").read_text())
    first = run_checks(InProcessStudent(source), H2)
    second = run_checks(InProcessStudent(source), H2)
    assert first == second
    assert score_parts(first, H2) == score_parts(second, H2)
    assert any(r.status != "passed" for r in first)


def test_messages_do_not_leak_check_internals():
    texts = []
    for source in (stub_source(), override_source((BUGGY_DIR / "softmax_wrong_axis.py").read_text())):
        for score in grade_source(source).values():
            texts += list(said(score.messages))
    assert texts
    for text in texts:
        assert not re.search(r"probes|Traceback|assert |def |test_|autograder|np\.random", text), text
        assert len(text) < 1500


def test_every_diagnosis_has_an_explanation():
    for code, text in diagnoses.known(H2).items():
        assert re.fullmatch(r"[a-z0-9_]+", code)
        assert len(text) > 20
    scores = grade_source(override_source((BUGGY_DIR / "softmax_overflow.py").read_text()))
    assert scores["stable_softmax"].explanations == (H2.misconceptions["softmax_overflow"],)


def test_a_second_run_reuses_the_collected_checks(reference_results):
    """The checks are collected once per process (their cost is measured in benchmarks/, never
    timed here): a second run collects nothing and gives the same verdicts."""
    student = InProcessStudent(reference_source())
    first = run_checks(student, H2)
    collected = collect_checks.cache_info()
    assert run_checks(student, H2) == first
    assert collect_checks.cache_info().misses == collected.misses
    assert collect_checks.cache_info().hits > collected.hits


def _with_parts(parts) -> object:
    """H2 with other parts (the spec is not checked again: a spec that disagrees)."""
    return dataclasses.replace(H2, spec=dataclasses.replace(H2.spec, parts=tuple(parts)))


def test_score_parts_rejects_points_that_disagree_with_the_notebook(reference_results):
    more = [dataclasses.replace(part, points=15) if part.name == "stable_softmax" else part
            for part in H2.parts]
    with pytest.raises(ValueError, match="stable_softmax"):
        score_parts(reference_results, _with_parts(more))
    with pytest.raises(ValueError, match="unknown part"):
        score_parts(reference_results, _with_parts(p for p in H2.parts if p.name != "torch_sdpa"))


def test_merge_hook_keeps_parts_apart(reference_results):
    code = score_parts(reference_results, H2)
    evidence = {"evidence": PartScore("evidence", 10, 14, needs_review=True)}
    merged = merge_part_scores(code, evidence)
    assert list(merged)[-1] == "evidence" and merged["evidence"].needs_review
    with pytest.raises(ValueError):
        merge_part_scores(code, {"torch_sdpa": code["torch_sdpa"]})


def test_plugin_turns_unexpected_check_errors_into_a_generic_message(tmp_path):
    (tmp_path / "test_broken.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.mark.part("x", requires="A rule")
        def test_internal_bug(student, reference):
            """A check with a bug"""
            raise KeyError("secret hidden input 12345")
    '''))
    spec = parse_spec(ONE_FUNCTION_SPEC)  # part x, worth 2: its one check gets both points
    plugin = CheckPlugin(InProcessStudent(""), reference=None, spec=spec)  # type: ignore[arg-type]
    with own_pytest_environment():  # as the grader runs its checks: not the suite's options
        pytest.main([str(tmp_path), "-q", "-p", "no:cacheprovider", "--assert=plain", "-c",
                     "/dev/null", "--rootdir", str(tmp_path)], plugins=[plugin])
    (result,) = plugin.results
    assert result.status == "error" and result.points == 0 and result.max_points == 2
    assert result.message == GENERIC_MESSAGE and "12345" not in result.message
    assert "KeyError" in result.internal


def test_grading_error_when_checks_cannot_be_collected(tmp_path):
    checks = tmp_path / "checks"  # an assignment like H2 whose checks do not import
    checks.mkdir()
    (checks / "pytest.ini").write_text("[pytest]\n")
    (checks / "test_bad.py").write_text("import no_such_module_anywhere\n")
    with pytest.raises(GradingError):
        run_checks(InProcessStudent(""), dataclasses.replace(H2, root=tmp_path))
