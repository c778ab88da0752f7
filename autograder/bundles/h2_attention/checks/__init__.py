"""Hidden checks (trusted side, never released): pytest modules run by ``autograder.grading``.

Every check takes the ``student`` and ``reference`` fixtures, is marked
``@pytest.mark.part(<function name>, weight=<int>, requires=<clause>)`` (its share of
the part's points in the spec; 1 if left out) and fails by raising
``autograder.grading.assertions.CheckFailure``. Run them with ``autograder.grading.run_checks``.
"""
