"""Tests of H2's hidden checks: the buggy corpus, probes, property checks, traceability."""
