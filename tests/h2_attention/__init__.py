"""Tests of H2's bundle (``autograder/bundles/h2_attention``): its reference, hidden checks,
evidence verifier, notebook, release, and the correct and buggy students."""
