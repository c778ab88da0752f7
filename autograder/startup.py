"""What a grader process sets up as it starts: called by its entry points, never on import.

``import autograder`` changes nothing in the importing process; the command line
(``autograder.cli.main``) and the other processes that grade (a Dask worker's session) call
``prepare_process`` first thing.
"""

from __future__ import annotations

import sys


def prepare_process() -> None:
    """Make this process start as fast as the grader needs.

    jsonschema (which nbformat imports) imports rfc3987_syntax when it is installed
    (jupyter-events asks for it) for its "iri" format check, and that import builds an Earley
    parser: 1-3 s at the start of every command. Nothing in the grader checks formats, so in
    its processes the import fails and jsonschema does without it ("iri" strings are then not
    checked by anyone's FormatChecker in this process). A process that already imported it
    keeps it. Call it before anything imports jsonschema."""
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
