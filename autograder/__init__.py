"""Trusted-side tooling for the H2 attention assignment: checks, evidence verifier, grader.

Nothing in this package is ever shipped to students.
"""

ASSIGNMENT = "h2_attention"
