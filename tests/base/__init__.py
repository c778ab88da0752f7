"""Tests of autograder.base and autograder.startup."""
