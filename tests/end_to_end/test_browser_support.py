"""Without Chromium the browser tests fail in CI and skip elsewhere, saying how to install it."""

from __future__ import annotations

import pytest

from tests.support import browser


def test_missing_chromium_fails_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser tests"):
        browser.missing("Chromium or its driver is not installed")


def test_missing_chromium_skips_elsewhere(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium chromium-driver"):
        browser.missing("Chromium or its driver is not installed")
