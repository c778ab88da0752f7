"""The grading machine's paths that no message a student reads may show.

A student's code that names one (an error quoting ``/srv/course/...``) both must not show it
and has reached outside its submission; ``autograder.base.safe_text.hide_paths`` hides
them and says whether it did. Which folder is the course root is the course layout's to say
(``autograder.base.course``), not a guess from a folder's depth.
"""

from __future__ import annotations

from pathlib import Path

from autograder.base.course import course_root_of
from autograder.spec import REPO


def private_paths(folder: Path) -> list[str]:
    """Absolute paths of the grading machine that no message may show for the submission in
    ``folder``: its course root (when it is in one), the folder itself, this repository and
    the TA's home."""
    resolved = Path(folder).resolve()
    root = course_root_of(resolved)
    return [*([str(root)] if root is not None else []), str(resolved), str(REPO),
            str(Path.home())]
