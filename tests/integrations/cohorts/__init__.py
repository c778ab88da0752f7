"""Tests of autograder.integrations.cohorts: the per-cohort nbgrader workflow."""
