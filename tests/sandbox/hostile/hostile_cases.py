"""Hostile submissions (issue 5, "Proof"): the table, and how their course roots are built.

Every submission starts from ``sample_cohort.solved_notebook`` (the release
notebook with the reference filled in) and its correct evidence file; a
hostile variant then changes the notebook or the folder. ``HOSTILE`` is the
table: name -> how the submission is made -> the outcome the grader must
produce. ``CONTROLS`` are ordinary submissions graded in the same batch and
then alone, to prove that hostile neighbours change nothing.

Processes a hostile submission starts carry a marker (their ``comm`` name, set
with ``prctl``, or their ``argv[0]``) and inherit ``TOKEN_ENV`` from the test
process, so the leftover check finds exactly this run's processes even when
other graders run on the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.authoring.sync import grade_id
from autograder.batch.engine import BatchOptions, BatchSummary
from autograder.bundles.h2_attention import samples as cohort
from autograder.sandbox.limits import Limits
from autograder.spec import REPO
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
SOURCE_DIR = SPEC.source_dir
LIMITS = Limits(cell_timeout=3, call_timeout=2, notebook_timeout=30)
JOBS = 2
SANDBOX_UIDS = range(61000, 62000)  # autograder.sandbox: first sandbox uid and how many
TOKEN_ENV = "H2_HOSTILE_TEST_TOKEN"
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])  # the venv the workers run from
FUNCTION_PARTS = SPEC.function_parts
EVIDENCE_PARTS = ("evidence", "limitation")
# What calls what in a correct solution: a function that does not return (or crashes its
# process) costs the parts that call it too; a wrong result is carried forward instead.
CALLERS = {
    name: (name, "scaled_dot_product_attention", "self_attention", "cross_attention",
           "value_intervention")
    for name in ("attention_scores", "stable_softmax")
}


# ------------------------------------------------------------ what a variant is


@dataclass(frozen=True)
class Context:
    """Facts a hostile submission is built from (absolute paths it attacks)."""

    root: Path  # the course root being graded
    victim: str  # another student of the same batch (a control)
    marker: str  # comm name / argv[0] of every process a submission starts (<= 15 chars)
    sibling: Path  # a world-readable course root of another section, not the one graded


@dataclass(frozen=True)
class Expect:
    """The outcome the grader must produce for one submission.

    ``zero`` parts score 0, ``lost`` parts score less than their maximum,
    ``unsure`` parts may score anything and every other part is full. ``notes`` are regular expressions that must each
    match the result's reason or one of its notes; ``messages`` map a part to a
    regular expression one of its messages must match.
    """

    status: str = "graded"
    zero: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    messages: dict[str, str] = field(default_factory=dict)
    reason: str = ""  # regular expression the reason must match (ungradable)
    unsure: tuple[str, ...] = ()  # parts whose points are not specified (but explained)
    reviewed: tuple[str, ...] = ()  # parts a person must look at (``needs_review``, theirs and the result's)


Build = Callable[[Path, str, Context], None]


@dataclass(frozen=True)
class Hostile:
    name: str
    describe: str
    build: Build
    expect: Expect
    bug: str = ""  # a known grader bug: the case is expected to fail (strict xfail)


# ------------------------------------------------------------ building blocks


def write_submission(
    folder: Path, student: str, notebook: nbformat.NotebookNode | None = None
) -> None:
    """The notebook (solved unless given) and the student's correct evidence file."""
    folder.mkdir(parents=True, exist_ok=True)
    notebook = notebook if notebook is not None else cohort.solved_notebook(student)
    (folder / NOTEBOOK).write_text(nbformat.writes(notebook), encoding="utf-8")
    cohort.write_evidence(folder, student)


def code(source: str) -> str:
    return textwrap.dedent(source).strip() + "\n"


def marked(ctx: Context, source: str) -> str:
    """``source`` preceded by naming this process ``ctx.marker`` (children inherit it)."""
    return code(
        f"import ctypes as _ct\n_ct.CDLL(None).prctl(15, {ctx.marker!r}.encode(), 0, 0, 0)\n"
    ) + code(source)


def cell_index(notebook: nbformat.NotebookNode, gid: str) -> int:
    return next(i for i, cell in enumerate(notebook.cells) if grade_id(cell) == gid)


def with_cells(*sources: str | Callable[[Context], str], after: str = "score_entry_count") -> Build:
    """New code cells after the cell ``after`` (default: the last solution)."""

    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        at = cell_index(notebook, after) + 1
        for offset, source in enumerate(sources):
            text = source(ctx) if callable(source) else code(source)
            notebook.cells.insert(at + offset, nbformat.v4.new_code_cell(text))
        write_submission(folder, student, notebook)

    return build


def in_function(function: str, body: str) -> Build:
    """``body`` becomes the first statements of ``function`` (after its docstring)."""

    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        indented = textwrap.indent(code(body), "    ")

        def inject(source: str) -> str:
            head, sep, rest = source.partition('    """\n')  # the docstring's closing line
            assert sep, f"no docstring end in {function}"
            return head + sep + indented + rest

        cohort.set_cell(notebook, function, inject)
        write_submission(folder, student, notebook)

    return build


def replace_function(function: str, source: str | Callable[[Context], str]) -> Build:
    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        text = source(ctx) if callable(source) else code(source)
        cohort.set_cell(notebook, function, lambda _: text)
        write_submission(folder, student, notebook)

    return build


def others(*parts: str) -> tuple[str, ...]:
    return tuple(p for p in FUNCTION_PARTS if p not in parts)


# ------------------------------------------------------------ the hostile cells

LOOP = "while True:\n    pass\n"
MEMORY_TOP = ("hog = bytearray(50 * 2**30)", "big = np.ones((10**6, 10**5))")
GROW = """
def _grow():
    chunks = []
    while True:
        chunks.append(np.ones(2**24))  # 128 MiB at a time, every page touched
_grow()
"""
HUGE_OUTPUT = (
    "print('x' * 10**8)",
    "for i in range(300_000):\n    print(i, 'spam' * 20)",
    "import os, sys\nos.write(1, b'y' * 10**7)\nos.write(2, b'z' * 10**7)\nsys.stderr.write('e' * 10**7)",
)
MONKEYPATCH_NUMPY = """
np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.isclose = lambda a, b, *x, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
def stable_softmax(scores, mask=None, temperature=1.0):
    return np.zeros(np.shape(scores))
"""
MONKEYPATCH_BUILTINS = """
import builtins
_real_isinstance = builtins.isinstance
builtins.abs = lambda x: 0
builtins.isinstance = lambda obj, kind: True if kind is float else _real_isinstance(obj, kind)
builtins.round = lambda *a, **k: 0
def stable_softmax(scores, mask=None, temperature=1.0):
    return np.full(np.shape(scores), 1.0 / np.shape(scores)[-1])
"""
LYING_ARRAY = """
class _Liar(np.ndarray):
    def __eq__(self, other):
        return True
    def __array_finalize__(self, obj):
        pass
def stable_softmax(scores, mask=None, temperature=1.0):
    return np.zeros(np.shape(scores)).view(_Liar)
"""


def read_cells(ctx: Context) -> list[str]:
    """Each a separate cell: each must raise (the notes show which error)."""
    repo = REPO
    return [
        f"exec(open({str(repo / 'solutions' / 'attention.py')!r}).read())",
        f"exec(open({str(repo / 'autograder' / 'bundles' / 'h2_attention' / 'checks' / 'test_softmax.py')!r}).read())",
        "import solutions\nfrom solutions import *",
        "import importlib\nglobals().update(vars(importlib.import_module('solutions.attention')))",
        f"exec(open('/proc/1/root{repo / 'solutions' / 'attention.py'}').read())",
        f"exec(open(f'/proc/{{os.getppid()}}/root{repo / 'solutions' / 'attention.py'}').read())",
        exec_solutions_of(ctx.root / "source" / ASSIGNMENT / NOTEBOOK),
        exec_solutions_of(repo / "source" / ASSIGNMENT / NOTEBOOK),
        # (subprocess return codes are not reliable in a worker: exec whatever came out)
        "import subprocess\nexec(subprocess.run(['git', '-C', "
        f"{str(repo)!r}, 'show', 'HEAD:solutions/attention.py'], capture_output=True, "
        "text=True).stdout)",
    ]


def exec_solutions_of(notebook: Path) -> str:
    """A cell that runs the solution cells of an instructor's notebook."""
    return code(
        f"""
        import json as _json
        for _cell in _json.load(open({str(notebook)!r}))["cells"]:
            if _cell["metadata"].get("nbgrader", {{}}).get("solution"):
                exec("".join(_cell["source"]))
        """
    )


def _stubs_plus_cells(student: str, sources: list[str]) -> nbformat.NotebookNode:
    """The release stubs (raise NotImplementedError) with ``sources`` as new cells after them."""
    notebook = cohort.solved_notebook(student)
    release = nbformat.read(SPEC.release_notebook, as_version=4)
    stubs = {grade_id(c): c.source for c in release.cells if grade_id(c) in FUNCTION_PARTS}
    for gid, stub in stubs.items():
        cohort.set_cell(notebook, gid, lambda _, stub=stub: stub)
    at = cell_index(notebook, "score_entry_count") + 1
    for offset, source in enumerate(sources):
        notebook.cells.insert(at + offset, nbformat.v4.new_code_cell(source))
    return notebook


def stubs_and_read_reference(folder: Path, student: str, ctx: Context) -> None:
    """The release stubs plus cells that try to load the reference."""
    write_submission(folder, student, _stubs_plus_cells(student, ["import os", *read_cells(ctx)]))


def stubs_and_sibling(folder: Path, student: str, ctx: Context) -> None:
    """The release stubs plus a cell that runs another course root's solution cells."""
    sibling = ctx.sibling / "source" / ASSIGNMENT / NOTEBOOK
    write_submission(folder, student, _stubs_plus_cells(student, [exec_solutions_of(sibling)]))


def write_cells(ctx: Context) -> list[str]:
    """Attacks on the grader's files; each its own cell, each must raise OSError."""
    root, victim = ctx.root, ctx.victim
    results = root / "autograded" / victim / ASSIGNMENT / "results.json"
    victim_notebook = root / "submitted" / victim / ASSIGNMENT / NOTEBOOK
    return [
        f"open({str(root / 'gradebook.db')!r}, 'wb').write(b'not a database')",
        f"import sqlite3\nsqlite3.connect({str(root / 'gradebook.db')!r}).execute("
        "'create table hacked (x)')",
        f"import os\nos.makedirs({str(results.parent)!r}, exist_ok=True)\n"
        f"open({str(results)!r}, 'w').write('{{\"score\": 100}}')",
        f"open({str(root / 'grades.csv')!r}, 'w').write('hacked')",
        f"open({str(root / 'SENTINEL')!r}, 'w').write('hacked')",
        f"import os\nos.remove({str(root / 'SENTINEL')!r})",
        f"open({str(victim_notebook)!r}, 'w').write('{{}}')",
        f"open({str(REPO / 'autograder' / 'bundles' / 'h2_attention' / 'checks' / f'zz_{ctx.marker}.txt')!r}, 'w').write('x')",
        f"open({str(SITE_PACKAGES / f'zz_{ctx.marker}.txt')!r}, 'w').write('x')",
    ]


def fork_bomb(ctx: Context) -> str:
    return marked(ctx, "import os\nwhile True:\n    os.fork()\n")


def fork_spinners(ctx: Context) -> str:
    """Children that leave the session (their own CPU autogroup each) and spin."""
    return marked(
        ctx,
        """
        import os, time
        for _ in range(8):
            if os.fork() == 0:
                os.setsid()
                time.sleep(0.3)
                while True:
                    pass
        """,
    )


def sigterm_then_loop(ctx: Context) -> str:
    return marked(
        ctx,
        """
        import signal
        for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
            signal.signal(_sig, signal.SIG_IGN)
        while True:
            pass
        """,
    )


def background(ctx: Context) -> str:
    """A plain child, a daemon that leaves the session and ignores SIGTERM, and a daemon
    that would kill every later process of its user id (the next student's worker)."""
    return marked(
        ctx,
        f"""
        import os, signal, subprocess, time
        subprocess.Popen([{ctx.marker!r}, "1000"], executable="sleep")
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                mine = {{p for p in os.listdir("/proc") if p.isdigit()}}
                while True:
                    time.sleep(0.05)
                    for p in os.listdir("/proc"):
                        if p.isdigit() and p not in mine and int(p) != os.getpid():
                            try:
                                os.kill(int(p), signal.SIGKILL)
                            except OSError:
                                pass
            os._exit(0)
        """,
    )


def kill_cells(ctx: Context) -> list[str]:
    return [
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",  # the zygote (root)
        "import os, signal\nos.kill(1, signal.SIGKILL)",
    ]


# ------------------------------------------------------------ broken files


def malformed_json(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    text = (folder / NOTEBOOK).read_text()
    (folder / NOTEBOOK).write_text(text[: len(text) // 2])


def not_utf8(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / NOTEBOOK).write_bytes(b"\xff\xfe" + os.urandom(1000))


def not_a_notebook(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / NOTEBOOK).write_text("[1, 2, 3]")


def deeply_nested(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / NOTEBOOK).write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")


def odd_cell_sources(folder: Path, student: str, ctx: Context) -> None:
    """Valid JSON, wrong types inside: a cell list item that is not a dict, a source
    list holding numbers, metadata that is a list."""
    write_submission(folder, student)
    data = json.loads((folder / NOTEBOOK).read_text())
    data["cells"].insert(0, "not a cell")
    data["cells"].insert(0, {"cell_type": "code", "source": ["x = 1\n", 2, None], "metadata": []})
    (folder / NOTEBOOK).write_text(json.dumps(data))


def huge_notebook(folder: Path, student: str, ctx: Context) -> None:
    notebook = cohort.solved_notebook(student)
    notebook.cells[-1].outputs = [nbformat.v4.new_output("stream", text="x" * (51 * 2**20))]
    write_submission(folder, student, notebook)


def no_notebook(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / NOTEBOOK).unlink()


def renamed_notebook(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / NOTEBOOK).rename(folder / f"{SPEC.name} (1).ipynb")


def two_other_notebooks(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    shutil.copy(folder / NOTEBOOK, folder / "draft.ipynb")
    (folder / NOTEBOOK).rename(folder / "final.ipynb")


def symlink_to_source(folder: Path, student: str, ctx: Context) -> None:
    """The notebook is a link to the instructor's notebook (reference in every cell)."""
    write_submission(folder, student)
    (folder / NOTEBOOK).unlink()
    (folder / NOTEBOOK).symlink_to(ctx.root / "source" / ASSIGNMENT / NOTEBOOK)


def folder_symlink_to_source(folder: Path, student: str, ctx: Context) -> None:
    """The whole assignment folder is a link to the instructor's source folder."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(ctx.root / "source" / ASSIGNMENT, target_is_directory=True)


def evidence_symlink(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    (folder / SPEC.evidence_file).unlink()
    (folder / SPEC.evidence_file).symlink_to(ctx.root / "gradebook.db")


def delete_cells(*gids: str) -> Build:
    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        notebook.cells = [c for c in notebook.cells if grade_id(c) not in gids]
        write_submission(folder, student, notebook)

    return build


def rename_grade_id(gid: str, new: str) -> Build:
    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        notebook.cells[cell_index(notebook, gid)].metadata["nbgrader"]["grade_id"] = new
        write_submission(folder, student, notebook)

    return build


def strip_metadata(folder: Path, student: str, ctx: Context) -> None:
    """Copied into a fresh notebook: no nbgrader metadata at all (locked cells run too)."""
    notebook = cohort.solved_notebook(student)
    for cell in notebook.cells:
        cell.metadata.pop("nbgrader", None)
    write_submission(folder, student, notebook)


# ------------------------------------------------------------ the table

SOFTMAX_LOST = CALLERS["stable_softmax"]
SOFTMAX_ONLY = ("stable_softmax",)  # wrong values: carried forward, charged once
# A softmax that returns zeros whatever its scores makes its callers' results constant too:
# nothing is carried forward from it (issue 25), so they lose points as well.
CONSTANT_SOFTMAX = CALLERS["stable_softmax"]
# Every submission's evidence file is the reference's (write_submission): code that does not
# compute those numbers loses the sections it does not reproduce (autograder.bundles.h2_attention.provenance).
NOT_REPRODUCED = ("evidence",)
NOT_REPRODUCED_MESSAGE = "do not reproduce"
NO_CODE_MESSAGE = "no notebook of yours could be run"
HANG = r"did not finish in time"
CRASH = r"crashed the process"
SKIPPED_TIMEOUT = r"the code cell that starts `.*` was skipped: it did not finish within 3 s"
SKIPPED_CRASH = r"the code cell that starts `.*` was skipped: it ended the process"
UNGRADABLE = "ungradable"


def raised(kind: str) -> str:
    return rf"(the code cell that starts `.*`|the solution cell of `\w+`) raised {kind}"


HOSTILE: list[Hostile] = [
    # ---- endless loops
    Hostile(
        "loop_top_level",
        "a cell `while True: pass` before the solutions",
        with_cells(LOOP, after="hand_example"),
        Expect(notes=(SKIPPED_TIMEOUT,)),
    ),
    Hostile(
        "loop_in_function",
        "stable_softmax never returns",
        in_function("stable_softmax", LOOP),
        # Charged once (issue 26): the functions built on it, and the evidence rebuilt with
        # them, are graded with the grader standing in for the looping block.
        Expect(
            zero=("stable_softmax",),
            lost=("stable_softmax",),
            messages={"stable_softmax": HANG,
                      **{part: "carried forward from `stable_softmax`" for part in SOFTMAX_LOST
                         if part != "stable_softmax"}},
        ),
    ),
    # ---- memory
    Hostile(
        "memory_top_level",
        "50 GiB bytearray and an 800 GB array in cells, then 128 MiB chunks until refused",
        with_cells(*MEMORY_TOP, GROW),
        Expect(notes=(raised("MemoryError"),)),
    ),
    Hostile(
        "memory_in_function",
        "causal_mask allocates 800 GB; padding_mask touches memory until refused",
        lambda folder, student, ctx: (
            in_function("causal_mask", "np.ones((10**6, 10**5))")(folder, student, ctx),
            _also(folder, student, "padding_mask", GROW.replace("_grow()\n", "_grow()")),
        ),
        Expect(
            zero=("causal_mask", "padding_mask"),
            lost=("causal_mask", "padding_mask"),
            messages={
                "causal_mask": "MemoryError",
                "padding_mask": "MemoryError|did not finish in time",
            },
        ),
    ),
    # ---- exits and kills
    Hostile(
        "sys_exit_cells",
        "sys.exit(), exit() and raise SystemExit in cells",
        with_cells("import sys\nsys.exit('bye')", "exit(3)", "raise SystemExit"),
        Expect(notes=("SystemExit",)),
    ),
    Hostile(
        "os_exit_cell",
        "os._exit(1) in a cell, os.kill(getpid, SIGKILL) in another",
        with_cells("import os\nos._exit(1)", "import os, signal\nos.kill(os.getpid(), 9)"),
        Expect(notes=(SKIPPED_CRASH,)),
    ),
    Hostile(
        "os_exit_in_function",
        "padding_mask calls os._exit(1)",
        in_function("padding_mask", "import os\nos._exit(1)"),
        Expect(zero=("padding_mask",), lost=("padding_mask",), messages={"padding_mask": CRASH}),
    ),
    Hostile(
        "kills_zygote_and_init",
        "os.kill on its parent and on pid 1 (in its own PID namespace the parent is out of "
        "sight, getppid() is 0, and pid 1 is the worker itself, which the kernel shields "
        "from its own namespace): nothing happens",
        lambda folder, student, ctx: with_cells(*kill_cells(ctx))(folder, student, ctx),
        Expect(),
    ),
    # ---- monkeypatching
    Hostile(
        "monkeypatch_numpy",
        "np.allclose/array_equal/isclose/testing patched, stable_softmax returns zeros",
        replace_function("stable_softmax", MONKEYPATCH_NUMPY),
        Expect(zero=("stable_softmax",), lost=CONSTANT_SOFTMAX + NOT_REPRODUCED),
    ),
    Hostile(
        "monkeypatch_builtins",
        "builtins.abs/isinstance/round patched, stable_softmax returns uniform rows",
        replace_function("stable_softmax", MONKEYPATCH_BUILTINS),
        Expect(lost=SOFTMAX_ONLY + NOT_REPRODUCED),
    ),
    Hostile(
        "lying_array",
        "stable_softmax returns an ndarray subclass whose == is always True",
        replace_function("stable_softmax", LYING_ARRAY),
        Expect(zero=("stable_softmax",), lost=CONSTANT_SOFTMAX + NOT_REPRODUCED),
    ),
    # ---- reading what the grader knows
    Hostile(
        "reads_reference",
        "stubs left in, cells exec the reference and the checks by absolute path, "
        "via /proc/*/root, import solutions, the course's source notebook, git show",
        stubs_and_read_reference,
        Expect(
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NOT_REPRODUCED_MESSAGE},
            notes=(raised("(FileNotFoundError|PermissionError|ModuleNotFoundError)"),),
        ),
    ),
    Hostile(
        "reads_sibling_course",
        "stubs left in, one cell execs the solutions from another section's course root",
        stubs_and_sibling,
        Expect(
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NOT_REPRODUCED_MESSAGE},
        ),
    ),
    # ---- writing what the grader keeps
    Hostile(
        "writes_grader_files",
        "cells write gradebook.db, another student's results.json and notebook, grades.csv, "
        "a sentinel, the checks folder and site-packages by absolute path",
        lambda folder, student, ctx: with_cells(*write_cells(ctx))(folder, student, ctx),
        Expect(notes=(raised("(OSError|PermissionError|FileNotFoundError)"),)),
    ),
    # ---- output
    Hostile(
        "huge_output",
        "print 10**8 characters, 300,000 lines, and write to fd 1 and 2",
        with_cells(*HUGE_OUTPUT),
        Expect(notes=(r"printed [\d,]+ characters; only the start was kept",)),
    ),
    Hostile(
        "output_in_function",
        "attention_context prints a megabyte per call",
        in_function("attention_context", "print('z' * 10**6)"),
        Expect(notes=(r"printed [\d,]+ characters",)),
    ),
    # ---- processes
    Hostile(
        "fork_bomb",
        "while True: os.fork() (the copies all share the worker's socket)",
        lambda folder, student, ctx: with_cells(fork_bomb(ctx))(folder, student, ctx),
        # Every copy answers on the worker's socket: this student's own calls get stale
        # answers, so their function parts are unspecified (each loss is still explained).
        Expect(unsure=FUNCTION_PARTS + NOT_REPRODUCED),
    ),
    Hostile(
        "fork_spinners",
        "8 children that each leave the session (a CPU autogroup of their own) and spin",
        lambda folder, student, ctx: with_cells(fork_spinners(ctx))(folder, student, ctx),
        Expect(),
    ),
    Hostile(
        "sigterm_ignored",
        "SIGTERM/SIGINT/SIGHUP/SIGALRM ignored, then an endless loop",
        lambda folder, student, ctx: with_cells(sigterm_then_loop(ctx))(folder, student, ctx),
        Expect(notes=(SKIPPED_TIMEOUT,)),
    ),
    Hostile(
        "background_processes",
        "Popen(sleep 1000), a setsid daemon ignoring SIGTERM that kills later processes",
        lambda folder, student, ctx: with_cells(background(ctx))(folder, student, ctx),
        Expect(),
    ),
    # ---- broken or unusual files
    Hostile(
        "malformed_json",
        "the notebook cut in half",
        malformed_json,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason=r"not a valid notebook: its JSON is broken at line \d+",
        ),
    ),
    Hostile(
        "not_utf8",
        "random bytes",
        not_utf8,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="UTF-8",
        ),
    ),
    Hostile(
        "json_not_a_notebook",
        "valid JSON, a list",
        not_a_notebook,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="no list of cells",
        ),
    ),
    Hostile(
        "deeply_nested_json",
        "valid JSON nested 100,000 levels deep",
        deeply_nested,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="notebook",
        ),
    ),
    Hostile(
        "odd_cell_types",
        "a cell that is a string, a source list holding numbers and None",
        odd_cell_sources,
        Expect(),
    ),
    Hostile(
        "huge_notebook",
        "51 MiB of saved output",
        huge_notebook,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="larger than",
        ),
    ),
    Hostile(
        "no_notebook",
        "only the evidence file was submitted",
        no_notebook,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="no notebook was submitted",
        ),
    ),
    Hostile(
        "renamed_notebook",
        f"the notebook is '{SPEC.name} (1).ipynb'",
        renamed_notebook,
        Expect(notes=(rf"was named '{SPEC.name} \(1\).ipynb'.*graded anyway",)),
    ),
    Hostile(
        "two_other_notebooks",
        f"draft.ipynb and final.ipynb, no {SPEC.notebook}",
        two_other_notebooks,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="several other notebooks",
        ),
    ),
    Hostile(
        "notebook_symlink",
        f"{SPEC.notebook} is a link to the instructor's source notebook",
        symlink_to_source,
        Expect(
            status=UNGRADABLE,
            zero=FUNCTION_PARTS,
            lost=FUNCTION_PARTS + NOT_REPRODUCED,
            messages={"evidence": NO_CODE_MESSAGE},
            reason="no notebook was submitted",
        ),
    ),
    Hostile(
        "folder_symlink",
        f"submitted/<student>/{SPEC.name} is a link to the instructor's source folder",
        folder_symlink_to_source,
        Expect(status=UNGRADABLE, zero=FUNCTION_PARTS, lost=FUNCTION_PARTS + EVIDENCE_PARTS),
    ),
    Hostile(
        "evidence_symlink",
        f"{SPEC.evidence_file} is a link to the gradebook",
        evidence_symlink,
        Expect(zero=EVIDENCE_PARTS, lost=EVIDENCE_PARTS, messages={"evidence": "symbolic link"}),
    ),
    Hostile(
        "solution_cells_deleted",
        "the causal_mask and combine_masks solution cells were deleted",
        delete_cells("causal_mask", "combine_masks"),
        Expect(
            zero=("causal_mask", "combine_masks"),
            lost=("causal_mask", "combine_masks"),
            notes=("deleted or renamed: causal_mask, combine_masks",),
            messages={"causal_mask": "was not found", "combine_masks": "was not found"},
        ),
    ),
    Hostile(
        "grade_id_renamed",
        "the stable_softmax cell's grade_id is 'my_softmax' (the function is intact)",
        rename_grade_id("stable_softmax", "my_softmax"),
        Expect(notes=("deleted or renamed: stable_softmax",)),
    ),
    Hostile(
        "metadata_stripped",
        "every cell's nbgrader metadata removed (pasted into a new notebook)",
        strip_metadata,
        Expect(notes=("deleted or renamed: attention_scores",)),
    ),
]


def _also(folder: Path, student: str, function: str, body: str) -> None:
    """Edit an already written submission: ``body`` at the start of ``function`` too."""
    notebook = nbformat.read(folder / NOTEBOOK, as_version=4)
    indented = textwrap.indent(code(body), "    ")
    cohort.set_cell(
        notebook,
        function,
        lambda s: s.replace('    """\n', '    """\n' + indented, 1),
    )
    (folder / NOTEBOOK).write_text(nbformat.writes(notebook), encoding="utf-8")


def _bug_control(name: str) -> Build:
    variant = next(v for v in cohort.VARIANTS if v.name == name)

    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        variant.apply(notebook, folder, student)
        write_submission(folder, student, notebook)

    return build


def _correct(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)


def student_of(case: Hostile) -> str:
    """Student ids sort in table order (the batch grades them in that order)."""
    return f"h{HOSTILE.index(case):02d}-{case.name.replace('_', '-')}"


def _control_id(label: str, neighbour: str) -> str:
    """A control sorts right after a nasty neighbour, so that the two are graded together."""
    return f"{student_of(next(c for c in HOSTILE if c.name == neighbour))}-{label}"


# The sandbox's second generation (issue 10): one case per finding, in the same batch.
from tests.sandbox.hostile.hostile_sandbox_cases import SANDBOX_CASES  # noqa: E402  (it builds on the blocks above)

HOSTILE.extend(SANDBOX_CASES)

# Carried-forward credit without work (issue 25): the stubs, and the attacks beside them.
from tests.sandbox.hostile.hostile_credit_cases import CREDIT_CASES  # noqa: E402

HOSTILE.extend(CREDIT_CASES)

# Limitations that are not the student's own words about attention (issue 25).
from tests.sandbox.hostile.hostile_limitation_cases import LIMITATION_CASES  # noqa: E402

HOSTILE.extend(LIMITATION_CASES)

# Controls: graded with the hostile ones, then each alone (student id -> build).
CONTROLS: dict[str, Build] = {
    _control_id("ok-a", "fork_spinners"): _correct,
    _control_id("ok-b", "memory_top_level"): _correct,
    _control_id("bug-softmax-axis", "background_processes"): _bug_control("softmax_wrong_axis"),
}
VICTIM = next(iter(CONTROLS))  # the student whose files writes_grader_files attacks


def all_students() -> dict[str, Build]:
    return {**{student_of(case): case.build for case in HOSTILE}, **CONTROLS}


# ------------------------------------------------------------ course roots and grading


def options(jobs: int = JOBS) -> BatchOptions:
    return BatchOptions(jobs=jobs, progress=False, limits=LIMITS)


def new_course_root(root: Path) -> Path:
    """An nbgrader course root as a TA has it: the instructor's source folder included."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(SOURCE_DIR, root / "source" / ASSIGNMENT)
    return root


def marker_processes(token: str, marker: str) -> list[str]:
    """Live processes started by this run's submissions (by environment token or marker)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        base = Path("/proc") / entry
        try:
            stat = (base / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                continue
            comm = (base / "comm").read_text().strip()
            cmdline = (base / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            uid = base.stat().st_uid
            environ = (base / "environ").read_bytes() if uid in SANDBOX_UIDS else b""
        except (OSError, IndexError):
            continue
        if marker in comm or marker in cmdline or token.encode() in environ:
            found.append(f"pid {entry} uid {uid} {comm!r} {cmdline[:80]!r}")
    return found


@dataclass
class HostileBatch:
    """One graded batch of every hostile submission and the controls."""

    root: Path
    ctx: Context
    summary: BatchSummary
    before: dict[str, bytes]  # files the hostile submissions attack, as they were
    leftovers: list[str]  # processes of this run still alive after the batch
    token: str

    def result(self, student: str):  # noqa: ANN201 - SubmissionResult
        return next(r for r in self.summary.results if r.student == student)
