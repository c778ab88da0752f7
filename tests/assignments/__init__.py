"""Tests of autograder.assignments: bundles, their registry, contract and grading key."""
