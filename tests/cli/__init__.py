"""Tests of autograder.cli: the command line as a whole."""
