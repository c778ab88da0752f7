"""Tests of autograder.integrations: one folder per platform package."""
