"""The browser fixtures (tests/support/browser.py) for the tests of this folder."""

from tests.support.browser import browser, chromium  # noqa: F401  (fixtures)
