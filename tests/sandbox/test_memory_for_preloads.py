"""A worker's default address space is sized for what its sandbox preloads (issue 39): an
assignment that preloads only NumPy gets ``BASE_MEMORY_MB``, without torch's allowance; a
memory limit the TA gives stands whatever is preloaded. Read inside a real sandboxed worker."""

from __future__ import annotations

import pytest

from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.limits import BASE_MEMORY_MB, Limits
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote

CELL = """
import resource

def address_space():
    return resource.getrlimit(resource.RLIMIT_AS)[0]
"""


@pytest.fixture(scope="module")
def numpy_sandbox():
    (zygote,) = Zygote.launch(preload=["numpy"])
    lease = UidLease.acquire()
    try:
        yield zygote.wait_ready(), lease.uid
    finally:
        zygote.close()
        lease.release()


@pytest.mark.parametrize(("limits", "mib"), [(None, BASE_MEMORY_MB), (Limits(), BASE_MEMORY_MB),
                                             (Limits(memory_mb=1536), 1536)])
def test_a_numpy_only_worker_gets_the_base_address_space(numpy_sandbox, limits, mib):
    zygote, uid = numpy_sandbox
    with SandboxStudent([CELL], zygote, limits=limits, uid=uid) as worker:
        assert worker.limits.memory_mb == mib
        assert worker.call("address_space") == mib * 2**20
