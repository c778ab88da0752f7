"""Hostile submissions of the sandbox's second generation (issue 10), one per finding.

Each is graded in the same batch as ``hostile_cases.HOSTILE`` (it is appended to
that table), so the batch-wide tests hold for them too: every student gets a
row with a reason for every lost point, the controls' results equal their
results graded alone, no process of the batch outlives it, and no file of the
grader is touched.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from tests.sandbox.hostile.hostile_cases import (
    CALLERS,
    FUNCTION_PARTS,
    REPO,
    SITE_PACKAGES,
    SKIPPED_TIMEOUT,
    TOKEN_ENV,
    Context,
    Expect,
    Hostile,
    _stubs_plus_cells,
    cell_index,
    code,
    cohort,
    marked,
    raised,
    with_cells,
    write_submission,
)
from tests.support.reference_attack import DISTRIBUTION, attack_cell

MALFORMED = r"malformed reply"

# 1. Strings that break files: a lone surrogate, terminal escapes, a formula.
BAD_STRINGS = (
    'raise ValueError("bad \\ud800 value")',
    'raise ValueError("\\x1b[31mred\\x1b[0m\\r\\n=HYPERLINK(\\"http://x\\")\\x00")',
)

# 2. A forged reply: the worker's own send replaced by one that lies about the protocol.
FORGED_REPLY = """
import sys
_protocol = sys.modules["autograder.untrusted.protocol"]
_send = _protocol.send
def _forged(sock, header, payload=b"", *args, **kwargs):
    return _send(sock, {"ok": False, "error": {}}, b"")
_protocol.send = _forged
"""

# 3. A worker that stops reading, then a cell larger than any socket buffer.
STOPS_READING = """
import sys, time
sys.modules["autograder.untrusted.protocol"].recv = lambda *a, **k: time.sleep(10**6)
"""
LARGE_LITERAL = "x = '" + "y" * (8 * 2**20) + "'\n"


# 4. Escaping process tracking: setsid, a thread that outlives its main thread (the
#    process shows as a zombie), and a pid-hopping chain of forks; compiled with gcc.
def escapes_tracking(ctx: Context) -> str:
    c_source = r"""
    #include <pthread.h>
    #include <sys/prctl.h>
    #include <unistd.h>
    static void *spin(void *arg) { for (;;) { sleep(1); } return arg; }
    int main(void) {
        prctl(PR_SET_NAME, "MARKER", 0, 0, 0);
        if (fork() != 0) return 0;
        setsid();
        for (int hop = 0; hop < 3; hop++) { if (fork() != 0) _exit(0); }
        pthread_t thread;
        pthread_create(&thread, 0, spin, 0);
        pthread_exit(0);
    }
    """.replace("MARKER", ctx.marker)
    return marked(ctx, f"""
        import os, subprocess, tempfile
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "escape.c"), "w") as handle:
            handle.write({code(c_source)!r})
        subprocess.run(["gcc", "-pthread", "-o", os.path.join(folder, "escape"),
                        os.path.join(folder, "escape.c")], check=True)
        subprocess.run([os.path.join(folder, "escape")], check=True)
        """)


# 5. Student code the trusted process must never parse: quadratic IPython magics, and a
#    literal that costs gigabytes to parse.
MANY_MAGICS = "\n".join(["!ls"] * 15_000) + "\n"
HUGE_PARSE = "x = [" + "1," * (4 * 2**20) + "]\n"

# 6. Memory that RLIMIT_AS does not count.
MEMFD = """
import os
fd = os.memfd_create("hog")
os.ftruncate(fd, 4 * 2**30)
with open(f"/proc/self/fd/{fd}", "wb") as handle:
    for _ in range(4 * 2**10):
        handle.write(b"x" * 2**20)
"""
SHM_FILE = """
with open("/dev/shm/hog", "wb") as handle:
    for _ in range(2**12):
        handle.write(b"x" * 2**20)
"""


# 7. Leaks: the TA's environment, and a function that quotes its (hidden) arguments.
def leaks_environment(ctx: Context) -> str:
    return code(f"""
        import os
        raise ValueError("token=" + os.environ.get({TOKEN_ENV!r}, "absent") + " path=" + os.getcwd())
        """)


QUOTES_ARGUMENTS = """
def stable_softmax(scores, mask=None, temperature=1.0):
    raise ValueError(f"I was called with {scores!r} and {mask!r}")
"""


def leaks(folder: Path, student: str, ctx: Context) -> None:
    notebook = cohort.solved_notebook(student)
    cohort.set_cell(notebook, "stable_softmax", lambda _: code(QUOTES_ARGUMENTS))
    at = cell_index(notebook, "score_entry_count") + 1
    notebook.cells.insert(at, nbformat.v4.new_code_cell(leaks_environment(ctx)))
    write_submission(folder, student, notebook)

# 10. Points without work: every stub left, the evidence file made by torch with the
#     notebook's own helper; and a keyword-stuffed limitation with correct code.
STUFFED = ("Quadratic. Purple elephants dance on the rooftop while seven trombones whisper "
           "about marmalade, and nobody asks the weather for permission to sing loudly.")


def stubs_with_torch_evidence(folder: Path, student: str, ctx: Context) -> None:
    import torch

    def torch_attention(Q, K, V, mask=None, scale=None):  # noqa: ANN001, ANN202
        q, k, v = (torch.as_tensor(x) for x in (Q, K, V))
        m = None if mask is None else torch.as_tensor(mask)
        weights = torch.softmax((q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
                                + (0 if m is None else torch.where(m, 0.0, float("-inf"))), -1)
        return (weights @ v).numpy(), weights.numpy()

    api = {
        "scaled_dot_product_attention": lambda Q, K, V, mask=None: torch_attention(Q, K, V, mask),
        "attention_scores": lambda Q, K, scale=None: (
            (torch.as_tensor(Q) @ torch.as_tensor(K).T).numpy()
            * (1.0 / Q.shape[-1] ** 0.5 if scale is None else scale)),
        "torch_sdpa": lambda Q, K, V, mask=None: torch_attention(Q, K, V, mask)[0],
        "value_intervention": lambda Q, K, V, index, new_value, mask=None: _intervene(
            torch_attention, Q, K, V, index, new_value, mask),
    }
    write_submission(folder, student, _stubs_plus_cells(student, []))
    cohort.write_evidence(folder, student, functions=api)


def _intervene(attend, Q, K, V, index, new_value, mask):  # noqa: ANN001, ANN202
    after = V.copy()
    after[index] = new_value
    context_before, weights_before = attend(Q, K, V, mask)
    context_after, weights_after = attend(Q, K, after, mask)
    return {"weights_before": weights_before, "weights_after": weights_after,
            "context_before": context_before, "context_after": context_after}


def stuffed_limitation(folder: Path, student: str, ctx: Context) -> None:
    write_submission(folder, student)
    cohort.write_evidence(folder, student, limitation=STUFFED)


# 11. The installed grader (issue 25): every stub left in, a last cell that imports the
#     reference or reads it from the grader's files (the checkout's, the venv's editable finder
#     and metadata, a scan of sys.path) and binds it over the stubs.
def installed_reference(folder: Path, student: str, ctx: Context) -> None:
    paths = [str(REPO / "solutions" / "attention.py"),
             *(str(p) for p in SITE_PACKAGES.glob(f"__editable__*{DISTRIBUTION}*")),
             *(str(p) for p in SITE_PACKAGES.glob(f"{DISTRIBUTION}-*/RECORD"))]
    write_submission(folder, student, _stubs_plus_cells(student, [attack_cell(paths)]))


SANDBOX_CASES: list[Hostile] = [
    Hostile(
        "bad_strings",
        "cells raise messages with a lone surrogate, terminal escapes, NUL and a formula",
        with_cells(*BAD_STRINGS),
        Expect(notes=(raised("ValueError"),)),
    ),
    Hostile(
        "forged_reply",
        "a cell replaces the worker's send with one that replies {'ok': False, 'error': {}}",
        with_cells(FORGED_REPLY, after="hand_example"),
        Expect(notes=(MALFORMED,)),
    ),
    Hostile(
        "stops_reading",
        "a cell replaces the worker's receive with a sleep; the next cell is an 8 MiB literal",
        with_cells(STOPS_READING, LARGE_LITERAL),
        # Its own functions cannot be called any more: their points are this student's loss.
        Expect(notes=(SKIPPED_TIMEOUT,), unsure=(*FUNCTION_PARTS, "evidence")),
    ),
    Hostile(
        "escapes_tracking",
        "a compiled helper: setsid, pid hopping, a thread that outlives its main thread",
        lambda folder, student, ctx: with_cells(escapes_tracking(ctx))(folder, student, ctx),
        Expect(),
    ),
    Hostile(
        "expensive_to_parse",
        "15,000 `!ls` lines in one cell, and a 4 Mi-element list literal",
        with_cells(MANY_MAGICS, HUGE_PARSE),
        Expect(notes=(r"the code cell that starts `.*` was skipped",)),
    ),
    Hostile(
        "memory_outside_rlimit",
        "memfd_create and /dev/shm files of gigabytes",
        with_cells(MEMFD, SHM_FILE),
        Expect(notes=(raised("PermissionError"), raised("OSError"))),
    ),
    Hostile(
        "leaks",
        "raises the TA's environment token and its working directory; stable_softmax "
        "raises an error quoting its arguments",
        leaks,
        Expect(
            zero=("stable_softmax",),
            # It raises in every check (its quoted inputs made safe, one message): no better
            # than a stub, so its callers carry nothing forward (issue 25).
            lost=CALLERS["stable_softmax"],
            notes=(r"token=absent",),
            messages={"stable_softmax": r"the message quoted the check's inputs"},
            unsure=("evidence",),
        ),
    ),
    Hostile(
        "points_without_work",
        "every stub left in; the evidence file made by torch with the notebook's own helper",
        stubs_with_torch_evidence,
        Expect(zero=FUNCTION_PARTS, lost=(*FUNCTION_PARTS, "evidence"),
               messages={"evidence": r"do not reproduce"}),
    ),
    Hostile(
        "stuffed_limitation",
        "correct code; the limitation is one keyword and a sentence about trombones",
        stuffed_limitation,
        Expect(lost=("limitation",), messages={"limitation": r"(not about attention|person)"}),
    ),
    Hostile(
        "installed_reference",
        "every stub left in; a last cell imports the reference or reads it through the "
        "grader's installed files (editable finder, metadata, sys.path) and binds it",
        installed_reference,
        Expect(zero=FUNCTION_PARTS, lost=(*FUNCTION_PARTS, "evidence"),
               messages={"evidence": r"do not reproduce"}),
    ),
]
"""Appended to ``hostile_cases.HOSTILE``."""
