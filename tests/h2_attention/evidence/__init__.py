"""Tests of H2's evidence-file verifier and the provenance check."""
