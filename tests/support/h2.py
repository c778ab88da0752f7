"""H2, the first assignment bundle, as the tests use it (tests may name an assignment; the
engine may not)."""

from autograder.assignments import load_assignment

H2 = load_assignment("h2_attention")
SPEC = H2  # what the tests read as the assignment's facts (an Assignment reads its spec's)
