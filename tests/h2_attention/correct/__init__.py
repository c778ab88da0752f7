"""Correct student solutions, each written from the released notebook's text alone.

Every module defines each of the notebook's graded functions (``SPEC.function_parts``)
in its own style; see ``tests/h2_attention/test_correct_students.py``, which grades them as the
course does.
"""
