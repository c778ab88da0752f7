"""nbgrader configuration for the course repository (where instructors author assignments).

The repository itself is the instructor's course root: `source/<assignment>/` is
authored, `release/<assignment>/` is generated from it (`make release`) and committed.
Graded cohorts live in their own course roots (see README), never in this directory.
"""

import tomllib
from pathlib import Path

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

ROOT = Path(__file__).resolve().parent
c.CourseDirectory.root = str(ROOT)
PYPROJECT = ROOT / "pyproject.toml"
if PYPROJECT.is_file():  # the course is the repository's project (a copy made to generate a
    # release, which has only this file and source/, needs no course id)
    c.CourseDirectory.course_id = tomllib.loads(
        PYPROJECT.read_text(encoding="utf-8"))["project"]["name"]
# No db_url here: nbgrader's default is `<root>/gradebook.db` of whichever root a command
# names, so `nbgrader export --CourseDirectory.root=course/demo` run from this directory
# reads the demo's gradebook (a pinned URL would read this directory's, an empty one).
# The instructor's gradebook (this root's) only records the assignment's cells; it is
# not committed.
# Student helpers shipped next to the notebook (an evidence schema, requirements.txt) are
# released too. An evidence file left by testing the source notebook is not:
# `generate-release` copies source/ without the assignment's evidence file.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*"]
c.Execute.timeout = 60
