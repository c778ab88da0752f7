"""Corpus of buggy submissions: one misconception per module (see
``tests/h2_attention/checks/test_corpus.py``).

Each module star-imports the reference and overrides only the buggy function(s);
``EXPECTED_PART``, ``EXPECTED_DIAGNOSIS`` and ``ALSO_AFFECTS`` say what the grader
must report. The modules are read as text, never imported by the grader.
"""
