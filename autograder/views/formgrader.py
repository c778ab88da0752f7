"""Formgrader's Autograde and Generate Feedback buttons, on a course root we grade: they
refuse, and say what to run.

nbgrader's autograde (formgrader's *Autograde* button, ``POST /formgrader/api/submission/
<assignment>/<student>/autograde``, and ``nbgrader autograde``) runs the student's notebook with
nbgrader itself, outside any sandbox, after deleting ``autograded/<student>/<assignment>/``
(our results.json, feedback.html and graded notebook). So every course root whose gradebook
we write gets, in its ``nbgrader_config.py`` (which nbgrader and formgrader load from the
course root), a block that sets nbgrader's configurable ``Autograde.exporter_class`` to an
exporter that refuses for this assignment. nbgrader's ``Autograde.start`` builds its exporter
before it deletes or runs anything, so nothing is touched; formgrader's answer is
``{"success": false}`` with the reason in its log, ``nbgrader autograde`` exits 1 with it in one
line. Other assignments of the root are left to nbgrader.

nbgrader's generate_feedback (formgrader's *Generate Feedback* button, ``POST /formgrader/api/
assignment/<assignment>[/<student>]/generate_feedback``, and ``nbgrader generate_feedback``)
would replace every page in ``feedback/<student>/<assignment>/`` with its own rendering of the
graded notebook (none of the grader's diagnoses, carried-forward explanations or version
notes) and delete the page of a student without a graded notebook; Release Feedback would
then send those. Its exporter (``GenerateFeedback.exporter_class``) refuses the same way, built
before anything is deleted, and names the commands that write the grader's pages.

The block is self-contained (nbconvert and nbgrader only): it works in whatever environment
the TA runs Jupyter from, even one without this grader installed. A block written before the
engine's names were neutral (``autograder.legacy_names``: other markers) is replaced in place.
"""

from __future__ import annotations

from pathlib import Path

from autograder.legacy_names import FORMGRADER_BEGIN as LEGACY_BEGIN
from autograder.legacy_names import FORMGRADER_END as LEGACY_END
from autograder.results.result import write_atomically

CONFIG = "nbgrader_config.py"
BEGIN = "# >>> autograder: nbgrader's autograde refuses here (keep this block) >>>"
END = "# <<< autograder <<<"
BLOCK = '''\
{begin}
# Written by `python -m autograder autograde`. nbgrader's autograde (formgrader's Autograde
# button, `nbgrader autograde`) would run the students' code outside the grader's sandbox and
# replace its results in autograded/; its generate_feedback (formgrader's Generate Feedback
# button) would replace the grader's feedback pages in feedback/ with its own rendering: for
# {assignment} both refuse before touching anything.


def _refuse_in_nbgrader(assignment, base, step, why, instead):
    import fnmatch

    from nbgrader.converters.base import NbGraderException

    class RefuseInNbgrader(base):
        """nbgrader's converters build their exporter before they delete or run anything."""

        def __init__(self, *args, **kwargs):
            coursedir = getattr(kwargs.get("parent"), "coursedir", None)
            if not fnmatch.fnmatchcase(assignment, getattr(coursedir, "assignment_id", "") or "*"):
                super().__init__(*args, **kwargs)  # another assignment: nbgrader's as usual
                return
            student = getattr(coursedir, "student_id", "") or "*"
            message = (
                f"nbgrader's {{step}} is turned off for {{assignment}} in this course root: {{why}}; "
                + instead(getattr(coursedir, "root", "."), student)
            )
            log = getattr(kwargs.get("parent"), "log", None)
            if log is not None:
                log.error(message)
            raise NbGraderException(message)

    return RefuseInNbgrader


def _refuse_nbgrader_autograde(assignment):
    from nbconvert.exporters import NotebookExporter

    def instead(root, student):
        only = "" if student == "*" else f" --student {{student}}"
        return f"grade with: python -m autograder autograde {{assignment}} --root {{root}}{{only}} --force"

    return _refuse_in_nbgrader(
        assignment, NotebookExporter, "autograde",
        "it would run the student's code outside the autograder's sandbox and replace its results",
        instead)


def _refuse_nbgrader_generate_feedback(assignment):
    from nbconvert.exporters import HTMLExporter

    def instead(root, student):
        return ("write them with: python -m autograder cohort feedback <cohort> (a cohort's "
                f"root), or python -m autograder export --root {{root}}; then release_feedback")

    return _refuse_in_nbgrader(
        assignment, HTMLExporter, "generate_feedback",
        "its pages would replace the autograder's feedback pages in feedback/ (without their "
        "diagnoses, carried-forward explanations and version notes)", instead)


c = get_config()  # noqa: F821 (nbgrader provides it)
c.Autograde.exporter_class = _refuse_nbgrader_autograde({assignment!r})
c.GenerateFeedback.exporter_class = _refuse_nbgrader_generate_feedback({assignment!r})
{end}
'''


def block(assignment: str) -> str:
    """The configuration block for ``assignment``."""
    return BLOCK.format(begin=BEGIN, end=END, assignment=assignment)


class FormgraderConfigError(OSError):
    """The course root's nbgrader_config.py cannot be read or written; one line for the TA."""


def install(root: Path, assignment: str) -> bool:
    """Make sure ``root/nbgrader_config.py`` holds the current block (appended to what is there,
    or replacing an older version of it); returns whether the file was written."""
    config = root / CONFIG
    try:
        text = config.read_text(encoding="utf-8") if config.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise FormgraderConfigError(f"cannot read {config}: {error}") from None
    wanted = block(assignment)
    if wanted in text:
        return False
    for begin, end_marker in ((BEGIN, END), (LEGACY_BEGIN, LEGACY_END)):
        start, end = text.find(begin), text.find(end_marker)
        if start >= 0 and end > start:  # an older block: replaced in place
            text = text[:start] + wanted + text[end + len(end_marker):].lstrip("\n")
            break
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + wanted
    try:
        write_atomically(config, text)
    except OSError as error:
        raise FormgraderConfigError(
            f"cannot write {config}: {error.strerror or error} (the course root must be a "
            "folder you can write to)") from None
    return True
