"""Whole courses through the commands a TA types, and the pages people read in a browser."""
