"""Every view of a course root's grades, kept current from what is saved (issue 37).

The grade of record is each student's saved result with the people's decisions and the
course's late policy in it (``results.json``, written by ``autograde`` and ``review``, with
``feedback.html``, ``grades.csv`` and the gradebook beside it). Other commands made copies:
the feedback pages ``cohort feedback`` laid out for nbgrader's ``release_feedback``, the
Canvas and Moodle files and ``summary.md`` of ``cohort export``, ``nbgrader-export.csv`` and
the instructor's report. ``views.publish`` rewrites every such copy that exists; each
command that changes a grade ends with it, so none is stale when the command returns.
"""
