"""The browser fixtures (tests/support/browser.py) for the notebook in JupyterLab."""

from tests.support.browser import browser, chromium  # noqa: F401  (fixtures)
