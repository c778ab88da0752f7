"""The ``sandbox`` fixture (tests/support/zygote.py) for the tests of this folder that drive a
sandboxed student directly."""

from tests.support.zygote import sandbox  # noqa: F401  (a fixture)
