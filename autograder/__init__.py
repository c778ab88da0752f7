"""Trusted-side tooling for the H2 attention assignment: checks, evidence verifier, grader.

Nothing in this package is ever shipped to students. The map of its
subpackages, and which of them runs beside student code, is in the README
("What is where"); the assignment's facts are in ``autograder.spec``.
"""
