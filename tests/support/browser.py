"""A real browser for the page tests: headless Chromium from Debian's packages, driven by
Selenium through Debian's ``chromedriver``.

``browser`` (a pytest fixture) opens a page from a ``file://`` URL and returns an
``OpenedPage``: the driver (to query the rendered page), the console errors the page caused
(JavaScript errors, failed loads) and, when asked, a full-page screenshot.

Chromium missing: in CI (``CI`` set, as ``.ci/run`` runs) the tests FAIL, since a skipped
browser test would hide that the pages were never checked; on a developer's machine they
skip, saying how to install it (``apt-get install chromium chromium-driver``).

Screenshots are written where the test asks (under its course root,
``<root>/report/screenshots/``); with ``BROWSER_SCREENSHOTS`` set (``.ci/run`` sets it to
``.ci/artifacts/screenshots``) a copy goes there too, for CI to keep as artifacts.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.skips import install

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver",)
INSTALL = "apt-get install -y chromium chromium-driver"
WIDTH, MAX_HEIGHT = 1280, 12000
ARTIFACTS_ENV = "BROWSER_SCREENSHOTS"


def _first(candidates: tuple[str, ...], name: str) -> str | None:
    found = next((path for path in candidates if os.access(path, os.X_OK)), None)
    return found or shutil.which(name)


def missing(reason: str, command: str = INSTALL) -> None:
    """Fail in CI (the pages must be checked there), skip elsewhere, with ``reason`` and the
    command that installs what is missing."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser tests ({command}, as .ci/run does)",
                    pytrace=False)
    pytest.skip(install(reason, command))  # in CI the test fails instead (above)


@dataclass
class OpenedPage:
    """A page as Chromium rendered it."""

    driver: Any  # selenium.webdriver.Chrome
    url: str
    console_errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    def find_all(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def find(self, css: str) -> Any:
        found = self.find_all(css)
        assert found, f"no element matches {css!r} in {self.url}"
        return found[0]

    @property
    def visible_text(self) -> str:
        """The text a reader sees (hidden elements and markup left out)."""
        return self.find("body").text


def _severe(entries: list[dict]) -> list[str]:
    return [entry.get("message", str(entry)) for entry in entries
            if entry.get("level") in ("SEVERE", "ERROR")]


def _save_screenshot(driver: Any, target: Path) -> Path:
    """The whole page, not only the first screen: the window grows to the page's height."""
    height = int(driver.execute_script(
        "return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)"))
    driver.set_window_size(WIDTH, min(max(height, 600), MAX_HEIGHT))
    target.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(target)), f"Chromium could not write {target}"
    copies = os.environ.get(ARTIFACTS_ENV)
    if copies:
        Path(copies).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, Path(copies) / target.name)
    return target


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the session (it starts in about a second)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("Selenium not installed", command="make setup")
    binary, driver_path = _first(CHROMIUM, "chromium"), _first(CHROMEDRIVER, "chromedriver")
    if binary is None or driver_path is None:
        missing("Chromium or its driver not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--disable-extensions", "--no-first-run",
                     f"--window-size={WIDTH},900", "--hide-scrollbars"):
        options.add_argument(argument)  # --no-sandbox: CI runs as root, where Chromium needs it
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


LOAD_SECONDS = 30


@pytest.fixture
def browser(chromium: Any) -> Callable[..., OpenedPage]:
    """``browser(path, screenshot=None)``: open ``path`` (a local file) and return the page,
    its console errors and, when ``screenshot`` is a path, a full-page screenshot there."""

    def open_page(path: Path, screenshot: Path | None = None) -> OpenedPage:
        chromium.get_log("browser")  # drop what earlier pages logged
        chromium.set_window_size(WIDTH, 900)
        url = Path(path).resolve().as_uri()
        chromium.get(url)
        # get() can return while a busy machine still loads the page's images: wait for the
        # load to finish (a page that never finishes still fails, after LOAD_SECONDS).
        deadline = time.monotonic() + LOAD_SECONDS
        state = chromium.execute_script("return document.readyState")
        while state != "complete" and time.monotonic() < deadline:
            time.sleep(0.1)
            state = chromium.execute_script("return document.readyState")
        assert state == "complete", f"{url} did not finish loading ({state})"
        page = OpenedPage(chromium, url)
        if screenshot is not None:
            page.screenshot = _save_screenshot(chromium, screenshot)
        page.console_errors = _severe(chromium.get_log("browser"))
        return page

    return open_page
