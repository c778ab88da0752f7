"""Tests of autograder.publish: every copy of the grades rewritten; status."""
