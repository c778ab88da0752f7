"""Tests of the hidden checks, the plain-data boundary and the student backends."""
