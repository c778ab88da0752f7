"""Trusted-side tooling of a grader for notebook assignments: sandbox, checks, outputs.

An assignment is a bundle the engine is given (``autograder.assignments``); nothing in
this package is ever shipped to students. The map of its subpackages, and which of them
runs beside student code, is in ``docs/development.md`` ("What is where").

Importing this package changes nothing in the importing process (the untrusted side
imports it too); what a grader process sets up as it starts is in ``autograder.startup``.
"""
