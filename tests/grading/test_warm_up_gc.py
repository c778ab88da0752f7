"""``warm_up_checks`` imports with cyclic GC off and then freezes what is alive, once per
process: the trusted coordinator pays less for its imports, and the grading processes forked
from it never traverse those objects. A long-lived process that starts session after session
(a test run, a Dask worker) must not freeze again each time, or every garbage cycle alive at
that moment would be kept for good; and GC must be on again afterwards."""

from __future__ import annotations

import gc

from autograder.grading.grade_one import warm_up_checks
from tests.support.h2 import H2


def test_warm_up_freezes_once_and_leaves_gc_on():
    warm_up_checks(H2)  # the first call in this process, or a later one: frozen from here on
    frozen = gc.get_freeze_count()
    assert frozen > 0 and gc.isenabled()
    garbage = [[] for _ in range(1000)]
    for item in garbage:
        item.append(item)  # cycles, to be collected
    del garbage, item
    warm_up_checks(H2)
    assert gc.get_freeze_count() == frozen
    assert gc.isenabled()


def test_warm_up_leaves_a_disabled_gc_disabled():
    gc.disable()
    try:
        warm_up_checks(H2)
        assert not gc.isenabled()
    finally:
        gc.enable()
