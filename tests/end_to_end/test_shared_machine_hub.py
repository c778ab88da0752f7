"""A course on a real JupyterHub (issue 50): a student fetches and submits in the
Assignment List, in a real browser, as their own Unix user; the instructor collects and
grades with the grader.

The users, the exchange and the released course are tests/support/shared_machine.py's (as in
test_shared_machine.py: an instructor and a student made with ``useradd``, the instructor's
commands run as the instructor with ``setpriv``). JupyterHub 6.1.1 runs on 127.0.0.1 alone
(free ports; its proxy, configurable-http-proxy from npm, too) with DummyAuthenticator and a
password, and LocalProcessSpawner: each single-user server runs as its Unix user, with the
system Python and the venv's packages (nbgrader's server and lab extensions among them), and
reads a system-wide ``nbgrader_config.py`` (``Exchange.root``, the course id), as
NOTES-hub.md set a hub up (a folder of its own on ``JUPYTER_CONFIG_PATH`` here, not
/etc/jupyter, so no other test's nbgrader reads it).

In headless Chromium (tests/support/browser.py), the student logs in, opens the Assignment
List from JupyterLab's Nbgrader menu, fetches the released assignment, saves their work and
submits it. Asserted: the submission reached the exchange as the student's (owned by their
Unix user), ``cohort collect`` and ``cohort grade`` collected and graded it (10 of 10 in
grades.csv), and the student's browser session cannot open the course root nor its source
notebook (the contents API, through links the student made in their home, answers 403/404),
while it can open the release beside it. The hub, its proxy and the single-user servers
are stopped at the end, the users removed.

Skipped without root and the shared-machine tools (tests/support/shared_machine.py),
JupyterHub, configurable-http-proxy or Chromium, each with the line that installs it; in CI
(``CI`` set: ``.ci/run`` installs them all) it fails instead.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.browser import ARTIFACTS_ENV
from tests.support.shared_machine import (
    ASSIGNMENT,
    NOTEBOOK,
    PACKAGES,
    SYSTEM_PYTHON,
    grader,
    home_of,
    require,
    require_shared_machine,
    run_as,
    shared_course,
)
from tests.support.skips import install
from tests.support.vectors import REFERENCE, solved_notebook

pytestmark = pytest.mark.slow
PREFIX = "h2hub"  # every user this test makes is named h2hub-<who>
TA, DANA = f"{PREFIX}-ta", f"{PREFIX}-dana"
COHORT = COURSE = f"{PREFIX}-fall"
JUPYTERHUB_INSTALL = ".venv/bin/python -m pip install jupyterhub==6.1.1"
PROXY = "configurable-http-proxy"
PROXY_INSTALL = f"npm install -g {PROXY}@5.3.0"
VENV = Path(sys.prefix)
WAIT = 120  # seconds: the longest any step may take (a single-user server starting)


def _hub_missing() -> str:
    if importlib.util.find_spec("jupyterhub") is None:
        return install("JupyterHub not installed", JUPYTERHUB_INSTALL)
    if shutil.which(PROXY) is None:
        return install(f"{PROXY} not installed", PROXY_INSTALL)
    node = shutil.which("node")
    version = subprocess.run([node, "--version"], capture_output=True, text=True,
                             check=False).stdout if node else ""
    if not version.startswith("v") or int(version[1:].split(".")[0]) < 20:
        return install(f"Node.js 20 or newer not installed ({PROXY} needs it)",
                       "apt-get install -y nodejs (20 or newer, e.g. Debian 13's)")
    return ""


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for each in sockets:
            each.bind(("127.0.0.1", 0))
        return [each.getsockname()[1] for each in sockets]
    finally:
        for each in sockets:
            each.close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def _hub_config(hub_dir: Path, etc: Path, ports: list[int], password: str) -> str:
    port, hub_port, api_port = ports
    environment = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(PACKAGES),  # the venv's packages, with the system Python
        # the venv's Jupyter config (its server extensions enabled), after the system-wide one
        "JUPYTER_CONFIG_PATH": os.pathsep.join([str(etc), str(VENV / "etc" / "jupyter")]),
        "JUPYTER_PATH": str(VENV / "share" / "jupyter"),  # the lab extensions
        "JUPYTERLAB_DIR": str(VENV / "share" / "jupyter" / "lab"),
        "OPENBLAS_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }
    return "\n".join([
        "c = get_config()  # noqa",
        f"c.JupyterHub.bind_url = 'http://127.0.0.1:{port}'",
        f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{hub_port}'",
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{api_port}'",
        f"c.ConfigurableHTTPProxy.command = [{shutil.which(PROXY)!r}]",
        f"c.ConfigurableHTTPProxy.pid_file = {str(hub_dir / 'proxy.pid')!r}",
        f"c.JupyterHub.db_url = 'sqlite:///{hub_dir / 'jupyterhub.sqlite'}'",
        f"c.JupyterHub.cookie_secret_file = {str(hub_dir / 'cookie_secret')!r}",
        f"c.JupyterHub.pid_file = {str(hub_dir / 'jupyterhub.pid')!r}",
        "c.JupyterHub.authenticator_class = 'dummy'",
        f"c.DummyAuthenticator.password = {password!r}",
        f"c.Authenticator.allowed_users = {{{DANA!r}}}",
        "c.JupyterHub.spawner_class = 'jupyterhub.spawner.LocalProcessSpawner'",
        f"c.Spawner.cmd = [{str(SYSTEM_PYTHON)!r}, '-m', 'jupyterhub.singleuser']",
        "c.Spawner.ip = '127.0.0.1'",
        "c.Spawner.default_url = '/lab'",
        f"c.Spawner.start_timeout = {WAIT}",
        f"c.Spawner.http_timeout = {WAIT}",
        f"c.Spawner.environment = {environment!r}",
        "",
    ])


def _processes_of(uids: set[int]) -> list[int]:
    """The processes running as one of ``uids`` (real uid), by id."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
        if int(uid) in uids:
            found.append(int(entry.name))
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@contextmanager
def running_hub(base: Path, exchange: Path, users: tuple[str, ...]) -> Iterator[SimpleNamespace]:
    """JupyterHub on 127.0.0.1 (run as root, in a folder only root reads), its users'
    servers reading a system-wide nbgrader_config.py; stopped at the end, with whatever it
    started."""
    hub_dir = base / "hub"
    hub_dir.mkdir(mode=0o700)
    etc = base / "etc" / "jupyter"
    etc.mkdir(parents=True)
    for folder in (etc, etc.parent):
        folder.chmod(0o755)
    config = etc / "nbgrader_config.py"
    config.write_text(f"c = get_config()  # noqa\nc.CourseDirectory.course_id = {COURSE!r}\n"
                      f"c.Exchange.root = {str(exchange)!r}\n", encoding="utf-8")
    config.chmod(0o644)
    ports = _free_ports(3)
    password = secrets.token_urlsafe(12)
    (hub_dir / "jupyterhub_config.py").write_text(_hub_config(hub_dir, etc, ports, password),
                                                   encoding="utf-8")
    log_path = hub_dir / "jupyterhub.log"
    uids = {int(subprocess.run(["id", "-u", user], capture_output=True, text=True,
                               check=True).stdout) for user in users}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(hub_dir / "jupyterhub_config.py")],
            cwd=hub_dir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "PATH": f"{VENV / 'bin'}:/usr/bin:/bin"})
    hub = SimpleNamespace(url=f"http://127.0.0.1:{ports[0]}", password=password,
                          log=lambda: log_path.read_text(errors="replace")[-4000:])
    try:
        deadline = time.monotonic() + WAIT
        while _status(f"{hub.url}/hub/api") != 200:
            assert process.poll() is None, f"JupyterHub exited:\n{hub.log()}"
            assert time.monotonic() < deadline, f"JupyterHub did not answer:\n{hub.log()}"
            time.sleep(0.2)
        yield hub
    finally:
        process.terminate()  # the hub stops its users' servers and its proxy
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        proxy = hub_dir / "proxy.pid"
        if proxy.exists() and proxy.read_text().strip().isdigit():
            _kill(int(proxy.read_text()))
        for pid in _processes_of(uids):  # a server the hub lost track of
            _kill(pid)


def _wait(what: str, condition: Callable[[], Any], hub: SimpleNamespace, driver: Any,
          timeout: float = WAIT) -> Any:
    """``condition()`` once it is true (the page still loading: false or an exception),
    failing after ``timeout`` with the page and the hub's log."""
    deadline = time.monotonic() + timeout
    error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            found = condition()
        except Exception as caught:  # noqa: BLE001  (an element not there yet, or stale)
            error, found = caught, None
        if found:
            return found
        time.sleep(0.2)
    folder = os.environ.get(ARTIFACTS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"hub-{what.replace(' ', '-')}.png"))
    raise AssertionError(f"{what}: not after {timeout} s ({error!r}) at {driver.current_url}\n"
                         f"{driver.find_element('tag name', 'body').text[-2000:]}\n"
                         f"hub log:\n{hub.log()}")


def _item(driver: Any, listing: str, button: str | None) -> Any:
    """The assignment's row in ``listing`` (its button ``button``, enabled), or None."""
    for row in driver.find_elements("css selector", f"#{listing} .list_item"):
        if ASSIGNMENT not in row.text:
            continue
        if button is None:
            return row
        for found in row.find_elements("css selector", "button"):
            if found.text == button and found.is_enabled():
                return found
    return None


CONTENTS = """
const [path, done] = arguments;
const xsrf = (document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1];
fetch(path, {credentials: "same-origin",
             headers: xsrf ? {"X-XSRFToken": decodeURIComponent(xsrf)} : {}})
  .then(async (response) => done([response.status, await response.text()]))
  .catch((error) => done([0, String(error)]));
"""


def student_in_browser(driver: Any, hub: SimpleNamespace, peeks: dict[str, Path]
                       ) -> dict[str, list]:
    """Dana logs in, fetches, saves her work and submits, all in the Assignment List; then
    asks the contents API for each of ``peeks`` (a link in her home: name -> target).
    Returns what it answered, name -> [status, body]."""
    by = "css selector"
    driver.get(f"{hub.url}/hub/login")
    driver.delete_all_cookies()  # no session of an earlier run
    driver.get(f"{hub.url}/hub/login")
    _wait("the login form", lambda: driver.find_element(by, "#username_input"), hub, driver)
    driver.find_element(by, "#username_input").send_keys(DANA)
    driver.find_element(by, "#password_input").send_keys(hub.password)
    driver.find_element(by, "#login_submit").click()

    # Her server starts (as her Unix user) and JupyterLab loads, its Nbgrader menu with it.
    def open_assignment_list() -> bool:
        entry = driver.find_elements(
            by, '.lm-Menu-item[data-command="nbgrader:open-assignment-list"]')
        if entry:
            entry[0].click()
            return True
        if not driver.find_elements(by, ".lm-Menu"):  # no menu open (yet): open Nbgrader's
            label = next(label for label in driver.find_elements(by, ".lm-MenuBar-item")
                         if label.text == "Nbgrader")
            label.click()
        return False

    def click(button: Any) -> bool:
        button.click()
        return True

    _wait("JupyterLab's Nbgrader menu, Assignment List", open_assignment_list, hub, driver)
    _wait("the released assignment's Fetch button",
          lambda: click(_item(driver, "released_assignments_list", "Fetch")), hub, driver)
    _wait("the fetched assignment's Submit button",
          lambda: _item(driver, "fetched_assignments_list", "Submit"), hub, driver)
    notebook = home_of(DANA) / ASSIGNMENT / NOTEBOOK
    assert notebook.stat().st_uid == home_of(DANA).stat().st_uid  # fetched as Dana
    notebook.write_text(json.dumps(solved_notebook(REFERENCE)), encoding="utf-8")  # she saves
    _wait("the Submit button clicked",
          lambda: click(_item(driver, "fetched_assignments_list", "Submit")), hub, driver)
    _wait("the submitted assignment", lambda: _item(driver, "submitted_assignments_list", None),
          hub, driver)

    answers = {}
    for name, target in peeks.items():
        run_as(DANA, "ln", "-s", str(target), name, cwd=home_of(DANA), check=True)
        answers[name] = driver.execute_async_script(
            CONTENTS, f"/user/{DANA}/api/contents/{name}?content=1")
    return answers


@pytest.fixture(scope="module")
def hub_course(chromium: Any) -> Iterator[SimpleNamespace]:
    require_shared_machine("the JupyterHub test")
    require(_hub_missing(), "the JupyterHub test")
    with shared_course("h2-shared-hub", TA, (DANA,), COHORT, COURSE) as out:
        run_as(TA, "chmod", "-R", "o-rwx", str(out.bundles), cwd=out.ta_home, check=True)
        release = out.exchange / COURSE / "outbound" / ASSIGNMENT
        peeks = {"course-root": out.root,
                 "course-source.ipynb": out.root / "source" / ASSIGNMENT / NOTEBOOK,
                 "release.ipynb": release / NOTEBOOK}
        with running_hub(out.base, out.exchange, (TA, DANA)) as hub:
            out.peeks = student_in_browser(chromium, hub, peeks)
            out.hub_log = (out.base / "hub" / "jupyterhub.log").read_text(errors="replace")
        out.inbound = [(folder.name, folder.stat().st_uid)
                       for folder in (out.exchange / COURSE / "inbound").iterdir()]
        for step in ("collect", "grade"):
            done = grader(TA, *out.cohort_args, step, COHORT, cwd=out.ta_home, timeout=600)
            out.lines[step] = done
            assert done.returncode == 0, (step, done.stdout[-3000:], done.stderr[-3000:])
        with (out.root / "grades.csv").open(newline="", encoding="utf-8") as handle:
            out.grades = {row["student"]: row for row in csv.DictReader(handle)}
        out.submitted = (out.root / "submitted" / DANA / ASSIGNMENT / NOTEBOOK).is_file()
        yield out


def test_the_browser_submission_reaches_the_exchange_as_the_student(
        hub_course: SimpleNamespace) -> None:
    uid = home_of(DANA).stat().st_uid  # her home is hers (useradd)
    assert [owner for name, owner in hub_course.inbound
            if name.startswith(f"{DANA}+{ASSIGNMENT}+")] == [uid], hub_course.inbound


def test_the_instructor_collects_and_grades_it(hub_course: SimpleNamespace) -> None:
    assert hub_course.submitted
    assert hub_course.grades[DANA]["total"] == "10", hub_course.grades


def test_the_students_session_cannot_open_the_course_root(hub_course: SimpleNamespace
                                                          ) -> None:
    """Through links she made in her home (as she can in a hub terminal), the contents API
    (what the file browser asks) reads the release for her, but neither the course root nor
    its source notebook: her server, her Unix user, is refused by the system."""
    status, body = hub_course.peeks["release.ipynb"]  # the same request, for what she may read
    assert status == 200 and '"cells"' in body, (status, body[:500])
    for name in ("course-root", "course-source.ipynb"):
        status, body = hub_course.peeks[name]
        assert status in (403, 404, 500), (name, status, body[:500])
        assert '"content"' not in body, (name, body[:500])
    assert hub_course.root.is_dir()  # there, and not hers to see (404: she cannot stat it)
    status, body = hub_course.peeks["course-source.ipynb"]
    link = home_of(DANA) / "course-source.ipynb"
    assert "Permission denied" in body or f"Permission denied: '{link}'" in hub_course.hub_log, (
        status, body[:500])
