"""`autograde`: grade a cohort's submissions (sandboxed, parallel, resumable).

API: ``grade_course(Course(root, assignment), options=BatchOptions(...))``; the
command line in ``command.py`` is a thin layer over it.
"""
