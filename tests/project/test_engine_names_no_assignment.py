"""The engine names no assignment: outside ``autograder/bundles/``, no file of the package
(code, comments, docstrings, templates, data) names H2 or what is H2's alone.

H2's names are read from its bundle, so a part added there is looked for here too: its
name (``h2_attention``, ``H2``), its evidence file's and schema's (``attention_evidence``,
``attention-evidence``), its part names and cell ids, and its reference package
(``solutions``, where it names the package: imported, a path, a dotted or quoted name; not
the English word). The spec's own vocabulary is the engine's, not H2's: the part kinds
``evidence`` and ``limitation`` and the cell id ``setup`` are not H2 names.

Nor does the engine name itself after H2 (issue 39): no operational name in the ``h2-``,
``H2_`` or ``h2_`` form (a lock file, an environment variable, a job name, a saved format, a
function), except the old names ``autograder/legacy_names.py`` keeps to migrate what they
left on disk. What only one assignment needs is where that assignment says so: torch is in
a bundle's grading key, its Gradescope zip and its workers' memory only when the bundle
preloads it.
"""

from __future__ import annotations

import ast
import re
import zipfile
from pathlib import Path

import pytest

from autograder.assignments import grading_key
from autograder.integrations.gradescope import build, scripts
from autograder.sandbox.limits import BASE_MEMORY_MB, PRELOAD_MEMORY_MB, Limits, memory_for
from autograder.spec import PART_KINDS, REPO
from tests.bundles import students as vectors
from tests.support.h2 import H2

PACKAGE = REPO / "autograder"
BUNDLES = PACKAGE / "bundles"
GENERIC = {*PART_KINDS, "setup"}
"""Words the generic spec uses whatever the assignment: never H2's names."""
REFERENCE_PACKAGE = re.compile(
    r"\b(?:import|from)\s+solutions\b|(?<![\w-])solutions(?=[/`'\"]|\.\w)")
"""``solutions`` naming H2's reference package, not the word (``sync-solutions`` aside)."""
OPERATIONAL = re.compile(r"(?<![A-Za-z0-9])[hH]2[-_]")
"""An operational name after H2 (``h2-grader``, ``H2_WORKER_STDERR``, ``.h2-grading.lock``,
``_h2_refuse_autograde``), wherever it stands in a word."""
LEGACY_NAMES = PACKAGE / "legacy_names.py"
"""The one file that may spell the old operational names (to migrate what they left)."""


def h2_names() -> set[str]:
    """What only H2 is called, from its bundle."""
    cells = {part.cell for part in H2.parts} | set(H2.run_cells) | set(H2.skip_cells)
    files = {Path(H2.notebook).stem, Path(H2.evidence_file).stem,
             H2.schema.removesuffix(".schema.json")}
    return ({H2.name, "H2", *files, *H2.part_points, *cells} - GENERIC) - {""}


def name_pattern(names: set[str]) -> re.Pattern[str]:
    """Any of ``names`` as a whole word (``causal_mask``, not ``my_causal_mask_helper``)."""
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def engine_files() -> list[Path]:
    """Every text file of the package outside the bundles."""
    files = []
    for path in sorted(PACKAGE.rglob("*")):
        if (not path.is_file() or BUNDLES in path.parents or "__pycache__" in path.parts
                or path.suffix in (".pyc", ".so")):
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def findings(files: list[Path], names: set[str]) -> list[str]:
    """``file:line: name: the line`` for every mention (the old operational names only
    outside ``LEGACY_NAMES``)."""
    pattern = name_pattern(names)
    found = []
    for path in files:
        operational = OPERATIONAL if path != LEGACY_NAMES else None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            named = sorted({m[0] for m in pattern.finditer(line)}
                           | {"solutions" for _ in REFERENCE_PACKAGE.finditer(line)}
                           | {m[0] + "..." for m in (operational.finditer(line)
                                                     if operational else ())})
            if named:
                where = path.relative_to(REPO) if path.is_relative_to(REPO) else path
                found.append(f"{where}:{number}: {', '.join(named)}: "
                             f"{line.strip()[:120]}")
    return found


def test_the_names_come_from_the_bundle():
    names = h2_names()
    assert {"h2_attention", "H2", "attention_evidence", "attention-evidence",
            "attention_scores", "score_entry_count", "save_evidence", "hand_example"} <= names
    assert not names & GENERIC


def test_the_patterns_match_names_not_words():
    pattern = name_pattern({"causal_mask", "h2_attention"})
    assert pattern.search("from autograder.bundles.h2_attention import x")
    assert pattern.search("the causal_mask part")
    assert not pattern.search("my_causal_mask_helper") and not pattern.search("h2_attention2")
    for naming in ("import solutions", "from solutions import evidence", "solutions/attention.py",
                   "``solutions``", "('autograder', 'solutions')", "solutions.attention"):
        assert REFERENCE_PACKAGE.search(naming), naming
    for word in ("six correct solutions.", "sync-solutions", "the solutions and the checks"):
        assert not REFERENCE_PACKAGE.search(word), word
    for operational in ("h2-grader", "H2_WORKER_STDERR", ".h2-grading.lock", "/run/h2-grader-uids",
                        "def _h2_refuse_autograde(", '"h2-attention-receipts"', "key=f'h2-grade-"):
        assert OPERATIONAL.search(operational), operational
    for word in ("sha2-256", "dh2_key", "h20", "H2", "the h2 hour"):
        assert not OPERATIONAL.search(word), word


def test_the_guard_finds_an_operational_name_in_an_engine_file(tmp_path):
    """What the guard reports for a file that names a lock and a variable after H2 (the
    engine's own files are the next test)."""
    probe = tmp_path / "probe.py"
    probe.write_text('LOCK = ".h2-grading.lock"\nimport os\nos.environ["H2_WORKER_STDERR"]\n')
    found = findings([probe], {"h2_attention"})
    assert [line.removeprefix(f"{probe}:").split(":")[0] for line in found] == ["1", "3"]


def test_only_old_names_are_kept_in_the_legacy_module():
    """``legacy_names.py`` is exempt: every name it holds must be an old one (a migration's),
    never a place for a new name after H2."""
    tree = ast.parse(LEGACY_NAMES.read_text(encoding="utf-8"))
    constants = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant)]
    assert len(constants) >= 7 and all(OPERATIONAL.search(c) for c in constants), constants
    assert not findings([LEGACY_NAMES], h2_names())


def test_no_engine_file_names_h2():
    files = engine_files()
    assert len(files) > 50 and PACKAGE / "cli.py" in files
    found = findings(files, h2_names())
    assert not found, (f"{len(found)} line(s) outside autograder/bundles/ name H2 (move the "
                       "fact into its bundle, or say it without naming the assignment):\n"
                       + "\n".join(found))


# ------------------------------------------------------------ torch only where preloaded


def key_libraries(assignment) -> list[str]:
    """The labels of the library versions hashed into the assignment's grading key."""
    inputs = grading_key.key_inputs(assignment)
    return [label for label, _ in inputs if label.startswith("library ")]


def test_a_bundle_that_does_not_preload_torch_has_no_torch_in_its_key():
    second = vectors.assignment()
    assert "torch" not in {name.partition(".")[0] for name in second.preload}
    assert key_libraries(second) == ["library numpy", "library jsonschema"]
    assert "library torch" in key_libraries(H2)  # H2 preloads it: a new torch regrades H2


def test_its_gradescope_zip_installs_no_torch_and_needs_no_torch_pin(tmp_path):
    second = vectors.assignment()
    with zipfile.ZipFile(build.build(tmp_path, second)) as archive:
        setup = archive.read("setup.sh").decode()
        requirements = archive.read(scripts.REQUIREMENTS_TXT).decode().split()
    assert not [line for line in requirements if re.match(r"torch\b", line)], requirements
    assert "torch" not in setup and scripts.TORCH_CPU_INDEX not in setup
    assert f"pip install -r {scripts.REQUIREMENTS_TXT}\n" in setup
    # A project that does not pin torch builds it; H2's zip still needs the exact pin.
    unpinned = ["numpy>=2.1,<3", "torch>=2", "jsonschema>=4.23,<5"]
    assert build.zip_requirements(second, unpinned) == (["numpy>=2.1,<3", "jsonschema>=4.23,<5"],
                                                        None)
    with pytest.raises(build.BuildError, match="pin it"):
        build.zip_requirements(H2, unpinned)
    assert build.zip_requirements(H2, ["torch==2.13.0"]) == (["torch==2.13.0"], "torch==2.13.0")


def test_its_workers_default_memory_has_no_torch_allowance():
    second = vectors.assignment()
    assert Limits().for_preload(second.preload).memory_mb == memory_for(second.preload) == \
        BASE_MEMORY_MB
    assert Limits().for_preload(H2.preload).memory_mb == BASE_MEMORY_MB + PRELOAD_MEMORY_MB[
        "torch"] == 3072  # H2's default is what it was
    assert Limits(memory_mb=4096).for_preload(H2.preload).memory_mb == 4096  # the TA's stands
