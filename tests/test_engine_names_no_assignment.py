"""The engine names no assignment: outside ``autograder/bundles/``, no file of the package
(code, comments, docstrings, templates, data) names H2 or what is H2's alone.

H2's names are read from its bundle, so a part added there is looked for here too: its
name (``h2_attention``, ``H2``), its evidence file's and schema's (``attention_evidence``,
``attention-evidence``), its part names and cell ids, and its reference package
(``solutions``, where it names the package: imported, a path, a dotted or quoted name; not
the English word). The spec's own vocabulary is the engine's, not H2's: the part kinds
``evidence`` and ``limitation`` and the cell id ``setup`` are not H2 names.
"""

from __future__ import annotations

import re
from pathlib import Path

from autograder.spec import PART_KINDS, REPO
from tests.support.h2 import H2

PACKAGE = REPO / "autograder"
BUNDLES = PACKAGE / "bundles"
GENERIC = {*PART_KINDS, "setup"}
"""Words the generic spec uses whatever the assignment: never H2's names."""
REFERENCE_PACKAGE = re.compile(
    r"\b(?:import|from)\s+solutions\b|(?<![\w-])solutions(?=[/`'\"]|\.\w)")
"""``solutions`` naming H2's reference package, not the word (``sync-solutions`` aside)."""


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
    """``file:line: name: the line`` for every mention."""
    pattern = name_pattern(names)
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            named = sorted({m[0] for m in pattern.finditer(line)}
                           | {"solutions" for _ in REFERENCE_PACKAGE.finditer(line)})
            if named:
                found.append(f"{path.relative_to(REPO)}:{number}: {', '.join(named)}: "
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


def test_no_engine_file_names_h2():
    files = engine_files()
    assert len(files) > 50 and PACKAGE / "cli.py" in files
    found = findings(files, h2_names())
    assert not found, (f"{len(found)} line(s) outside autograder/bundles/ name H2 (move the "
                       "fact into its bundle, or say it without naming the assignment):\n"
                       + "\n".join(found))
