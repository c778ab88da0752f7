"""Buggy solutions that hang or end the process: graded in the sandbox only
(``checks/test_corpus_stops.py``)."""
