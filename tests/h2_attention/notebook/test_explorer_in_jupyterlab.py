"""Step 5's routing explorer in a real JupyterLab, driven by headless Chromium.

The explorer prints into its widget only when a control moves (issue 36: a notebook run
without a front end then has nothing to answer mid-cell, which is where such runs stalled).
This is the other half: a student in JupyterLab still gets a working widget. "Run All"
in the browser, then the query menu and the temperature slider each print their row.
A screenshot is kept (``explorer-in-jupyterlab.png``, and in ``$BROWSER_SCREENSHOTS``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.support.browser import _save_screenshot
from tests.support.h2 import SPEC, predicted
from tests.support.kernels import WALL_SECONDS

pytestmark = pytest.mark.slow

RANKINGS = {"[1, 0]": "A = C > B", "[0, 1]": "B = C > A", "[1, 1]": "C > A = B", "[-1, 0]": "B > A = C"}
TOKEN = "explorer-test"
ROW = ".widget-vbox .widget-output"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(driver: Any, script: str, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = driver.execute_script(script)
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"JupyterLab: {what} not within {seconds:.0f} s")


@pytest.fixture
def jupyterlab(tmp_path: Path):
    """A JupyterLab server on loopback over a solved copy of the source notebook; its URL."""
    folder = tmp_path / SPEC.name
    shutil.copytree(SPEC.source_dir, folder)
    notebook = nbformat.read(folder / SPEC.notebook, as_version=4)
    for cell in notebook.cells:
        if cell.source.startswith("STUDENT_ID = "):
            cell.source = 'STUDENT_ID = "s-jupyterlab"'
        elif cell.cell_type == "code":
            cell.source = predicted(cell.source, rankings=RANKINGS)
    nbformat.write(notebook, folder / SPEC.notebook)
    port = _free_port()
    log = open(tmp_path / "jupyterlab.log", "w+b")  # noqa: SIM115  (closed below)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={folder}", "--allow-root",
         "--LabApp.expose_app_in_browser=True", f"--ServerApp.runtime_dir={tmp_path / 'rt'}"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config")})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail(f"JupyterLab did not start: {log.read().decode()[-2000:]}")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/lab/tree/{SPEC.notebook}?token={TOKEN}", folder
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and its kernels
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def test_the_explorer_widget_answers_in_jupyterlab(chromium, jupyterlab):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    url, folder = jupyterlab
    started = time.monotonic()
    chromium.set_window_size(1280, 900)
    chromium.get(url)
    kernel = "window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel"
    _wait_for(chromium, f"return {kernel}?.status === 'idle'", 90, "the notebook's kernel")
    chromium.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    _wait_for(chromium, "return !!document.querySelector('.widget-dropdown select')", WALL_SECONDS,
              "Run All reaching the explorer")
    menu = chromium.find_element(By.CSS_SELECTOR, ".widget-dropdown select")
    # innerText is what is rendered: JupyterLab renders the cells near the viewport only.
    chromium.execute_script("arguments[0].scrollIntoView({block: 'center'})", menu)
    _wait_for(chromium, f"return (document.querySelector('{ROW}')?.innerText || '')"
              ".includes('move the slider')", 30, "the explorer's prompt")
    Select(menu).select_by_visible_text("[0, 1]")
    row = _wait_for(chromium, f"const t = document.querySelector('{ROW}')?.innerText || '';"
                    "return t.includes('q=[0, 1]') && t", 30, "the query menu's row")
    assert "T=1.00" in row and "B = C > A (as you predicted)" in row, row

    handle = chromium.find_element(By.CSS_SELECTOR, ".widget-vbox .noUi-handle")
    handle.click()
    handle.send_keys(Keys.ARROW_LEFT)  # one step down the log slider: T = 10 ** -0.05
    row = _wait_for(chromium, f"const t = document.querySelector('{ROW}')?.innerText || '';"
                    "return t.includes('T=0.89') && t", 30, "the slider's row")
    assert row.count("q=[0, 1]") == 1, row  # the row is replaced, not appended
    evidence = folder / SPEC.evidence_file  # the cells after the explorer ran too
    while not evidence.is_file():
        assert time.monotonic() - started < WALL_SECONDS, "Run All never saved the evidence file"
        time.sleep(0.2)
    _save_screenshot(chromium, folder.parent / "explorer-in-jupyterlab.png")
