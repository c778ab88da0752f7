"""Hostile submissions graded in one batch: the sandbox's defences, proven end to end."""
