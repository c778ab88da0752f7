"""Thin command line over the autograder API: one sub-command per module.

Each command module exposes ``add_arguments(parser)`` and ``run(args) -> int``;
registering a command is one line in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from autograder.batch import interrupts  # signal and threading only
from autograder.spec import SPEC_FILE, SpecError, load_spec  # cheap: specs load on first use
from autograder.startup import prepare_process

# One BLAS thread per process, unless the user chose otherwise: the grader runs one process per
# core on tiny matrices, and OpenBLAS's extra thread only spins after each product (about
# 0.15 s of CPU at every start, taken from the zygote importing torch on the other core).
# Set before anything imports NumPy (the sandbox sets its own).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# name -> (module, one-line help); the module's docstring is the command's --help text.
COMMANDS: dict[str, tuple[str, str]] = {
    "assignments": (
        "autograder.assignments.command",
        "list the assignment bundles this grader can see, and where each comes from",
    ),
    "autograde": (
        "autograder.batch.command",
        "grade every submission of a course: sandboxed, parallel, resumable (TAs)",
    ),
    "cohort": (
        "autograder.integrations.cohorts.command",
        "per-cohort workflow: release, collect, grade, feedback, export",
    ),
    "export": (
        "autograder.publish.export",
        "a graded root's grades for Canvas and Moodle, nbgrader's export and feedback pages (TAs)",
    ),
    "gradescope": (
        "autograder.integrations.gradescope.command",
        "build autograder.zip for Gradescope (setup.sh, run_autograder, the grader)",
    ),
    "generate-release": (
        "autograder.authoring.release",
        "regenerate an assignment's release/ from source/ with nbgrader; prove it current and clean",
    ),
    "report": (
        "autograder.report.command",
        "the instructor's report of a graded course: plots, item analysis, similarity",
    ),
    "review": (
        "autograder.review.command",
        "what needs a person, and a TA's decisions (scores with who and why), everywhere",
    ),
    "run-autograder": (
        "autograder.integrations.gradescope.run",
        "grade one submission with Gradescope's run_autograder paths",
    ),
    "status": (
        "autograder.publish.status",
        "what a course root holds: graded, to review and why, settings, each output's state",
    ),
    "sync-solutions": (
        "autograder.authoring.sync",
        "copy an assignment's reference and points into its source notebook (instructors)",
    ),
    "verify-evidence": (
        "autograder.assignments.evidence_command",
        "check an evidence file (schema, consistency, limitation)",
    ),
}


def own_modules() -> set[str]:
    """The top-level modules that are ours: the engine, and the reference packages the
    assignments import from outside their bundles (their specs' ``reference``). Read from
    the bundles' specs only when a module is missing, so no command pays for it."""
    # assignments.registry (17 ms): only once a module is missing
    from autograder.assignments.registry import PACKAGED, search_folders

    names = {"autograder"}
    specs = list(PACKAGED.glob(f"*/{SPEC_FILE}"))
    for folder in search_folders():  # AUTOGRADER_ASSIGNMENTS's (no arguments parsed here)
        specs += folder.glob(f"*/{SPEC_FILE}")
    for path in specs:
        try:
            names.add(load_spec(path).reference.partition(".")[0])
        except SpecError:  # a broken spec is its own command's one line, not this one's
            continue
    return names


def missing_dependency(error: ModuleNotFoundError) -> str | None:
    """One line for a package this Python lacks (the system ``python3``, not the project's
    environment: a TA's commonest first mistake); None for a module of our own (the engine,
    an assignment's reference), which is a broken checkout and surfaces as it is."""
    missing = (error.name or "").partition(".")[0]
    if not missing or missing in own_modules():
        return None
    venv = Path(__file__).resolve().parents[1] / ".venv"
    if Path(sys.prefix).resolve() == venv.resolve():  # the right environment, incomplete
        fix = "run `make setup` in the repository root to install what is missing"
    else:
        fix = ("run `source .venv/bin/activate` in the repository root first (no .venv there "
               "yet: `make setup`), or use the Python you installed the grader into")
    return f"{sys.executable} has no module {missing!r}, which the grader needs: {fix}"


class Parser(argparse.ArgumentParser):
    """A usage mistake is one line naming it and where to look, not the usage and a line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


def program_name() -> str:
    """How the user started us, for usage lines: the installed script's name (whichever of
    its names was run) or ``python -m autograder``."""
    invoked = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if invoked and invoked not in ("__main__.py", "-c", "-m") and not invoked.startswith("python"):
        return invoked
    return "python -m autograder"


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The top-level parser. Only the command named in ``argv`` imports its module
    (some pull in torch or jsonschema), so ``--help`` and every command start fast."""
    parser = Parser(
        prog=program_name(),
        description="An autograder for nbgrader assignments, each given as a bundle "
                    "(instructor and TA side; `assignments` lists them).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = next((arg for arg in argv if arg in COMMANDS), None)
    for name, (module_name, help_text) in COMMANDS.items():
        if name != chosen:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def warn_if_open(root: object, command: str) -> None:
    """One line (stderr) when the course root a command works in is open to other users of
    the machine (``status`` says it in its own report)."""
    if not isinstance(root, Path) or command == "status":
        return
    # base.closed (grp, stat): cheap
    from autograder.base.closed import open_root_line

    line = open_root_line(root.resolve())
    if line:
        print(f"warning: {line}", file=sys.stderr)


AGAIN = "then run the same command again"
RESOURCES = {
    errno.ENOSPC: ("no space left on the device of {path}", f"free space, {AGAIN}"),
    errno.EDQUOT: ("your disk quota is used up, writing {path}",
                   f"free space within it (or ask for a larger one), {AGAIN}"),
    errno.EROFS: ("{path} is on a read-only file system",
                  f"mount it read-write (or work on a copy of the root), {AGAIN}"),
    errno.EACCES: ("permission denied on {path}",
                   f"make it readable and writable by you (`ls -l` shows who may), {AGAIN}"),
    errno.EPERM: ("operation not permitted on {path}",
                  "an immutable file or folder (`lsattr -d` shows an i) needs `chattr -i`; "
                  f"otherwise make it writable by you, {AGAIN}"),
}
"""What a command's file could not be written for (the machine's, not the grader's): what and
the fix; ``resource_line`` fills in the file."""


def resource_line(error: OSError, root: object = None) -> str | None:
    """One line for a file of the root the machine would not let a command write (a full disk,
    a quota, a read-only mount, an unwritable or immutable file), naming the file (else the
    root) and the fix; None for any other ``OSError``, which surfaces as it is."""
    if error.errno not in RESOURCES:
        return None
    what, fix = RESOURCES[error.errno]
    path = error.filename or (f"the course root {root}" if root is not None else "a file")
    return f"{what.format(path=path)}: {fix}"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the exit status. A spec that
    contradicts itself or the hidden checks, found as a command loads it or checks it
    first (``require_consistent_spec``), is one line and exit 2, like a usage mistake."""
    argv = list(sys.argv[1:] if argv is None else argv)
    prepare_process()  # before a command's modules import theirs
    restore = interrupts.stop_on_signals()  # SIGTERM, SIGHUP: as Ctrl-C, one line below
    args = None
    try:
        args = build_parser(argv).parse_args(argv)
        warn_if_open(getattr(args, "root", None), args.command)
        return int(args._module.run(args) or 0)
    except SpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:  # the command's modules import theirs lazily too
        line = missing_dependency(error)
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head`: the reader left; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:  # a full disk, an unwritable file (BrokenPipeError: above)
        line = resource_line(error, getattr(args, "root", None))
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return 1
    except Exception as error:  # a record a newer grader wrote: one line (never imported here)
        stop = _stop_behind(error)
        if stop is not None:  # a signal that landed where Python wraps what it raises
            return _stopped(stop, args)
        record = sys.modules.get("autograder.results.result")
        if record is None or not isinstance(error, record.NewerRecord):
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as error:  # Ctrl-C, SIGTERM, SIGHUP (autograder.batch.interrupts)
        return _stopped(error, args)
    finally:
        restore()


def _stopped(error: KeyboardInterrupt, args: argparse.Namespace | None) -> int:
    """Ctrl-C, SIGTERM or SIGHUP: the command's one line, and 128 + the signal."""
    print(interrupts.stopped_by(error) + interrupted_line(args).removeprefix("interrupted"),
          file=sys.stderr)
    return interrupts.exit_status(error)


def _stop_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM, SIGHUP) an exception was raised from: a signal that lands
    while Python creates a class wraps it in a ``RuntimeError`` ("Error calling
    __set_name__"), seen when SIGHUP came during an import."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def interrupted_line(args: argparse.Namespace | None) -> str:
    """What Ctrl-C left, in the command's own words (its module's
    ``said_when_interrupted(args)``; the commands that grade say their own, that what was
    graded is kept), else that the command stopped."""
    said = getattr(getattr(args, "_module", None), "said_when_interrupted", None)
    if callable(said):
        return said(args)
    return "interrupted: the command stopped before it finished; run it again to finish it"


if __name__ == "__main__":
    sys.exit(main())
