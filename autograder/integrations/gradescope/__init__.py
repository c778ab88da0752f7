"""Gradescope: build the autograder zip, and grade one submission inside it.

``build`` writes ``autograder.zip`` (``setup.sh`` and ``run_autograder`` from ``scripts``,
the configuration of ``zip_config``, the grader's own code); ``run`` is what that
``run_autograder`` calls (``python -m autograder run-autograder``); ``metadata`` reads
Gradescope's ``submission_metadata.json`` (whose submission, when, against which due date);
``results`` turns a grade into Gradescope's ``results.json``.
"""
