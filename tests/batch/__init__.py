"""Tests of autograder.batch: a course root graded in parallel, resumable."""
