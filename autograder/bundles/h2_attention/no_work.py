"""Whether a submission holds no work of the student's: the release as it was handed out.

The identity check (the file is this student's) is worth points of its own, and Run All of
an untouched release saves a file that passes it: every section records the stubs' error,
the student id is right. Those points must not be earned by typing a student id, so an
untouched release scores 0 for the evidence file (issue 42).

What makes it untouched is what the student did, never which exception a section recorded
(issue 50, item 18): a student who implemented twelve functions and left ``stable_softmax``
a stub (every section calls it) did work, and keeps the identity check like anyone whose
stubs raise something else. So a submission holds *no work* exactly when

* no function part earned a point on the hidden checks (``failed_functions``: all of them),
  and
* no function returns anything when called on plain valid inputs (``PROBES``, the
  reference's own arguments): each still raises, a stub's ``NotImplementedError`` or any
  other fixed error a stub could be edited to raise, or is missing.

The second condition costs at most one call into the sandbox per function, and is only
asked when the first holds (a submission whose every function part scored 0).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cache
from typing import Any

import numpy as np

from autograder.grading.student import StudentError
from solutions import attention as reference

from .bundle import H2

NO_WORK = "nothing_computed"  # the finding's code (as issue 42 named it)
MESSAGE = (
    "none of your functions computes anything yet (each still raises, as the release's stubs "
    "do) and none earned a point on the hidden checks, so this file holds nothing your "
    "functions computed and earns no points, not even for your student id; implement them "
    "and re-run the notebook (Kernel → Restart & Run All)"
)


@cache
def probes() -> dict[str, tuple[tuple, dict]]:
    """Valid arguments for every graded function (small, float64; the reference accepts
    each): a function that returns on them computes something."""
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    W = [rng.normal(size=(3, 3)) for _ in range(3)]
    X = rng.normal(size=(4, 3))
    scores = reference.attention_scores(Q, K)
    causal = reference.causal_mask(3)
    padding = reference.padding_mask(np.array([2, 3]), 3)
    calls: dict[str, tuple[tuple, dict]] = {
        "attention_scores": ((Q, K), {}),
        "additive_scores": ((Q, K, rng.normal(size=(3, 5)), rng.normal(size=(3, 5)),
                             rng.normal(size=(5,))), {}),
        "stable_softmax": ((scores,), {}),
        "attention_context": ((reference.stable_softmax(scores), V), {}),
        "scaled_dot_product_attention": ((Q, K, V), {}),
        "causal_mask": ((3,), {}),
        "padding_mask": ((np.array([2, 3]), 3), {}),
        "combine_masks": ((causal, padding), {}),
        "self_attention": ((X, *W), {}),
        "cross_attention": ((Q, X, *W), {}),
        "torch_sdpa": ((Q, K, V), {}),
        "value_intervention": ((Q, K, V, 0, V[0] + 1.0), {}),
        "score_entry_count": ((2, 4), {}),
    }
    missing = set(H2.function_parts) - set(calls)
    if missing:  # a function part added to the spec needs its probe here
        raise KeyError(f"no probe for the function parts {sorted(missing)}")
    return calls


def no_work(call: Callable[..., Any], failed_functions: Collection[str]) -> bool:
    """Whether the submission holds no work (see the module's docstring); ``call`` is
    ``Student.call``."""
    if not set(H2.function_parts) <= set(failed_functions):
        return False  # some function earned points: work
    for name, (args, kwargs) in probes().items():
        try:
            with np.errstate(all="ignore"):
                call(name, *args, **kwargs)
        except StudentError:
            continue  # raises (a stub, any fixed error), hangs, crashes or is missing
        return False  # it returned something: the student wrote code that runs
    return True
