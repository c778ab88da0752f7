"""Correct student solutions, each written from the released notebook's text alone.

Every module defines the notebook's 11 functions in its own style; see
``tests/test_correct_students.py``, which grades them as the course does.
"""
