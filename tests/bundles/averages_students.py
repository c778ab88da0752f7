"""Students of the ``averages`` test bundle, from the bundle's own sample students
(``tests/bundles/averages/samples.py``): a correct one writes the mean its correct ``mean``
computes; a forged one has a ``mean`` that divides by one too few but hands in the right
number (the file alone checks out; the student's function does not compute it)."""

from __future__ import annotations

from autograder.assignments import load_assignment
from tests.bundles.students import BUNDLES

NAME = "averages"
SAMPLES = load_assignment(NAME, [BUNDLES]).module("samples")
LIMITATION, PLACEHOLDER = SAMPLES.LIMITATION, SAMPLES.PLACEHOLDER
write_submission = SAMPLES.write_submission
