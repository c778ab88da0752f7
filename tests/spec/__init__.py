"""Tests of autograder.spec: a bundle's assignment.toml."""
