"""tests/bundles is a folder of assignment bundles (``--assignments tests/bundles``), not tests:
their hidden checks take the grader's ``student`` and ``reference`` fixtures and run only
when the grader runs them, never in the project's test session."""

collect_ignore_glob = ["*"]
