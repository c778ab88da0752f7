"""nbgrader configuration for the H2 attention course repository.

The repository itself is the instructor's course root: `source/` is authored,
`release/` is generated from it (`make release`) and committed. Graded cohorts
live in their own course roots (see README), never in this directory.
"""

from pathlib import Path

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.course_id = "h2-attention"
# No db_url here: nbgrader's default is `<root>/gradebook.db` of whichever root a command
# names, so `nbgrader export --CourseDirectory.root=course/demo` run from this directory
# reads the demo's gradebook (a pinned URL would read this directory's, an empty one).
# The instructor's gradebook (this root's) only records the assignment's cells; it is
# not committed.
# Student helpers shipped next to the notebook (the evidence schema) are released too;
# evidence files produced while testing the source notebook are not.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*", "attention_evidence.json",
]
c.Execute.timeout = 60
