"""Tests of autograder.integrations.lms: the Canvas and Moodle grade files."""
