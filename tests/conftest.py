"""The test session is a grader process: it starts as one (``autograder.startup``), so the
tests import what the grader's commands import, as fast."""

from autograder.startup import prepare_process

prepare_process()
