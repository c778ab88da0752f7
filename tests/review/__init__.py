"""Tests of autograder.review: what needs a person, and a TA's decisions."""
