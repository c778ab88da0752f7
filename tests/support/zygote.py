"""The ``sandbox`` fixture: a warm zygote and a leased sandbox uid, for the tests that drive
``SandboxStudent`` directly (registered by the conftest of each folder that has them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[object, int]]:
    """A zygote and a leased sandbox uid, for one module's tests."""
    from autograder.sandbox.uids import UidLease
    from tests.support.wire import start_zygote

    lease = UidLease.acquire()
    zygote = start_zygote()
    yield zygote, lease.uid
    zygote.close()
    lease.release()
