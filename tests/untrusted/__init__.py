"""Tests of autograder.untrusted: what runs beside student code, and the trust boundary."""
