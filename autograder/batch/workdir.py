"""The grader's own current folder, checked before anything is started.

pytest, which collects and runs the hidden checks, changes back to the folder it was started
from. A grader run as another user from a folder that user cannot enter (``sudo -u ta ...``
or ``setpriv`` from root's 0700 home, where Python often lives too) would import the grader,
start the sandbox, and then stop halfway with a ``PermissionError`` traceback. It is refused
up front instead, with one line saying what to do.
"""

from __future__ import annotations

import os


def current_folder_problem() -> str:
    """Why this process could not come back to its current folder, or ``""`` when it can."""
    try:
        folder = os.getcwd()
    except OSError as error:
        return (f"the current folder no longer exists ({error.strerror}): run the grader from "
                "an existing folder (cd to the course root first)")
    try:
        os.chdir(folder)
    except OSError as error:
        return (f"this user (uid {os.getuid()}) cannot enter the current folder {folder} "
                f"({error.strerror}), which the checks' runner returns to: run the grader from "
                "a folder it can read (cd to the course root first)")
    return ""
