"""The test suite: a folder per package of ``autograder/``, H2's bundle in ``h2_attention/``,
whole courses in ``end_to_end/``, the repository as a whole in ``project/``
(docs/development.md, "Tests and conventions")."""
