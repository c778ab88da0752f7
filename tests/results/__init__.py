"""Tests of autograder.results: the record."""
