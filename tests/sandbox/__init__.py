"""Tests of autograder.sandbox: the trusted side's handle on the sandbox."""
