"""nbgrader's own command line, started as a grader process starts.

``python -m autograder.base.nbgrader_command ARGS`` runs ``nbgrader ARGS``: the same
application, options and exit status. The one difference is ``prepare_process``: jsonschema
(nbgrader imports it through nbformat) then does without rfc3987_syntax, whose Earley
parsers take about 0.9 s of CPU to build and which nbgrader never uses. Every ``nbgrader``
the grader starts (``cohort collect``, ``generate-release``, ...) starts this way.
"""

from __future__ import annotations

import sys


def nbgrader_command(*args: str) -> list[str]:
    """The argv that runs ``nbgrader ARGS`` with this interpreter."""
    return [sys.executable, "-m", "autograder.base.nbgrader_command", *args]


if __name__ == "__main__":
    from autograder.startup import prepare_process

    prepare_process()
    from nbgrader.apps.nbgraderapp import main

    sys.exit(main())
