"""Trusted-side tooling for the H2 attention assignment: checks, evidence verifier, grader.

Nothing in this package is ever shipped to students. The map of its
subpackages, and which of them runs beside student code, is in the README
("What is where"); the assignment's facts are in ``autograder.spec``.
"""

import sys

# jsonschema (which nbformat imports) imports rfc3987_syntax when it is installed (jupyter-events
# asks for it) for its "iri" format check, and that import builds an Earley parser: 1-3 s at the
# start of every command. Nothing here checks formats, so in the grader's processes the import
# fails and jsonschema does without it ("iri" strings are then not checked by anyone's
# FormatChecker in this process). A process that already imported it keeps it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
