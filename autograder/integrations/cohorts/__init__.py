"""`cohort`: release, collect, grade, feedback and export per cohort (instructors and TAs).

Cohorts are declared in ``cohorts.toml``; each has its own course root and gradebook.
"""
