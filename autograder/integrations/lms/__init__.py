"""Grade files an LMS gradebook imports as they are: Canvas's and Moodle's CSV formats.

``grades`` picks the numbers (the very strings of ``grades.csv``) and the students left
out; ``canvas`` and ``moodle`` each write one LMS's format, from settings that
``cohorts.toml`` gives per cohort (the assignment's column, how students are identified).
"""
