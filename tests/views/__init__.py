"""Tests of autograder.views: the record rendered into each output."""
