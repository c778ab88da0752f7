"""Tests of autograder.report: the instructor's report."""
