"""Tests of autograder.grading: one submission graded."""
