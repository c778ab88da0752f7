"""nbgrader's own command line, started as a grader process starts.

``python -m autograder.base.nbgrader_command ARGS`` runs ``nbgrader ARGS``: the same
application, options and exit status. The one difference is ``prepare_process``: jsonschema
(nbgrader imports it through nbformat) then does without rfc3987_syntax, whose Earley
parsers take about 0.9 s of CPU to build and which nbgrader never uses. And a new gradebook
(``generate_assignment`` in a fresh folder, ``db student add``...) is stamped with the head
revision of nbgrader's migrations read in-process (``alembic_head``), not by the ``alembic
heads`` subprocess nbgrader starts for it: the same revision, without 2 s of CPU and without
needing ``alembic`` on PATH. Every ``nbgrader`` the grader starts (``cohort collect``,
``generate-release``, ...) starts this way.
"""

from __future__ import annotations

import sys


def nbgrader_command(*args: str) -> list[str]:
    """The argv that runs ``nbgrader ARGS`` with this interpreter."""
    return [sys.executable, "-m", "autograder.base.nbgrader_command", *args]


def alembic_head() -> str:
    """The head revision of nbgrader's gradebook migrations: what ``alembic heads`` prints first
    (``nbgrader.api.get_alembic_version``), read from the scripts nbgrader ships."""
    # Only here: alembic costs 0.1 s to import, and only a new gradebook needs it.
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR  # nbgrader: imported by the caller (nbgrader's main)

    return ScriptDirectory(ALEMBIC_DIR).get_heads()[0]


if __name__ == "__main__":
    from autograder.startup import prepare_process

    prepare_process()
    import nbgrader.api
    from nbgrader.apps.nbgraderapp import main

    nbgrader.api.get_alembic_version = alembic_head  # Gradebook() calls it for a new database
    sys.exit(main())
