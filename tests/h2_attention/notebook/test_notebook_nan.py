"""The notebook itself with a wrong-axis softmax (issue 26: NaN travels): Run All saves an
evidence file that is strict JSON with "NaN" where the functions returned NaN (no section
turned into a serialiser's error), and the notebook's own check names the function."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention.samples import BUGS, set_cell, solved_notebook
from tests.support.h2 import SPEC
from tests.support.kernels import nbconvert_execute

NOTEBOOK, RELEASE_DIR = SPEC.notebook, SPEC.release_dir

pytestmark = pytest.mark.slow


def test_run_all_records_the_nan_of_a_wrong_axis_softmax(tmp_path: Path):
    function, old, new = BUGS["softmax_wrong_axis"]
    notebook = solved_notebook("s-nan")
    set_cell(notebook, function, lambda source: source.replace(old, new))
    for name in (p.name for p in RELEASE_DIR.iterdir() if p.name != NOTEBOOK):
        (tmp_path / name).write_bytes((RELEASE_DIR / name).read_bytes())
    nbformat.write(notebook, tmp_path / NOTEBOOK)
    done = nbconvert_execute(tmp_path, NOTEBOOK)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (tmp_path / SPEC.evidence_file).read_text(encoding="utf-8")
    evidence = json.loads(text, parse_constant=lambda literal: pytest.fail(literal))
    assert not [name for name in SPEC.evidence_sections
                if isinstance(evidence.get(name), dict) and "error" in evidence[name]]
    assert "NaN" in evidence["masked_case"]["weights"][0]
    assert [entry["max_abs_diff"] for entry in evidence["parity"]] == ["NaN", "NaN"]
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    check = next(cell for cell in executed.cells
                 if grade_id(cell) == SPEC.part("evidence").grade_cell)
    (error,) = [out for out in check.outputs if out["output_type"] == "error"]
    assert "your function returned NaN here (`scaled_dot_product_attention`" in error["evalue"]
    assert "JSON compliant" not in error["evalue"]
