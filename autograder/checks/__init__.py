"""Hidden checks (trusted side, never released): pytest modules run by ``autograder.grading``.

Every check takes the ``student`` and ``reference`` fixtures, is marked
``@pytest.mark.part(<function name>, points=<int>)`` and fails by raising
``autograder.grading.assertions.CheckFailure``. Run them with ``autograder.grading.run_checks``.
"""
