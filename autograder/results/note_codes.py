"""The kinds of note a result can hold (``Message.code``), each said once here.

A note's sentence is for people; these codes are what programs compare (review, the
report, the TA's summary, the feedback page). A code marked for review sends the
submission to a person whatever its parts say.
"""

from __future__ import annotations

# What the submission's files leave open
NOTEBOOK_COPIES = "notebook_copies"  # copies beside the notebook: which holds the work? (review)
NOTEBOOK_RENAMED = "notebook_renamed"  # the only notebook had another name; graded anyway
CELL_DAMAGED = "cell_damaged"  # a code cell whose source is not text; not run
CELLS_MISSING = "cells_missing"  # solution cells deleted or renamed
UNHASHED = "unhashed"  # files too large to hash in full: a change could go unseen (review)
# What running it showed
CELL_SKIPPED = "cell_skipped"
CELL_RAISED = "cell_raised"
REACHED_OUT_CELL = "reached_out_cell"  # a cell named a path of the grading machine (review)
REACHED_OUT_FUNCTION = "reached_out_function"  # a function did (review)
FUNCTION_STOPPED = "function_stopped"  # a function hung or ended its process (``part``: which)
OUTPUT_CUT = "output_cut"  # printed more than is kept
# When it was submitted
TIME_UNCONFIRMED = "time_unconfirmed"  # a due date, but no time that can be trusted (review)
LATE_NOT_JUDGED = "late_not_judged"  # no due date: lateness not judged (the TA's)
# The TA's alone
GRADESCOPE_METADATA = "gradescope_metadata"  # what Gradescope's metadata left open
EVIDENCE_FINDING = "evidence_finding"  # the bundle's integrity finding (whose inputs a file holds)
SUBMISSION = "submission"  # a note about the upload itself (Gradescope)

REACHED_OUT = (REACHED_OUT_CELL, REACHED_OUT_FUNCTION)
# About the student's own upload and running it as a notebook, cell by cell: nothing a
# hidden check found, so a platform that holds the hidden checks' results back until the
# due date shows these at once (the student can fix them before it). A function that hung
# or printed too much under the hidden checks is not among them.
OWN_FILES = (SUBMISSION, NOTEBOOK_COPIES, NOTEBOOK_RENAMED, CELL_DAMAGED, CELLS_MISSING,
             CELL_SKIPPED, CELL_RAISED, REACHED_OUT_CELL, TIME_UNCONFIRMED)
