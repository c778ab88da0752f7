"""Tests of autograder.integrations.gradescope: the autograder.zip and run_autograder."""
