"""H2's authoring hooks (``autograder.authoring.sync``): the locked cells the source notebook
holds besides the reference's functions, each a copy of the reference's evidence code."""

from __future__ import annotations

import inspect

EVIDENCE_CELL_ID = "evidence_helper"
EVIDENCE_CHECK_CELL_ID = "evidence_check_helper"


def _evidence_cell_source() -> str:
    """The exact text of the locked evidence cell: solutions/evidence.py minus its
    module docstring and ``__future__`` import (a notebook cell needs neither)."""
    from solutions import evidence

    header = (
        f"# Locked helper (do not edit): builds {evidence.EVIDENCE_FILENAME} from YOUR "
        "functions above.\n"
        "# It runs them on the lecture's hand example and on inputs derived from your student id.\n"
    )
    text = inspect.getsource(evidence)
    body = text.split('"""', 2)[2].replace("from __future__ import annotations\n", "")
    return header + body.strip() + "\n"


def _evidence_check_cell_source() -> str:
    """The locked cell that validates the student's file against the shipped schema."""
    from solutions import evidence_check

    return (
        "# Locked helper (do not edit): checks your evidence file against the schema shipped\n"
        "# next to this notebook, as the grader's first step does.\n"
        + inspect.getsource(evidence_check.validate_evidence_file).rstrip() + "\n"
    )


def locked_cells() -> dict[str, str]:
    """grade_id -> the exact text ``sync-solutions`` writes into that locked cell."""
    return {EVIDENCE_CELL_ID: _evidence_cell_source(),
            EVIDENCE_CHECK_CELL_ID: _evidence_check_cell_source()}
