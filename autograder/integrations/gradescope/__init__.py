"""Gradescope: build the autograder zip, and grade one submission inside it.

``build`` writes ``autograder.zip`` (``setup.sh``, ``run_autograder`` and the grader's own
code); ``run`` is what that ``run_autograder`` calls (``python -m autograder
run-autograder``); ``results`` turns a grade into Gradescope's ``results.json``.
"""
