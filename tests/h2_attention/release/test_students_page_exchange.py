"""The students' page (docs/students.md) against nbgrader 0.9.6's own exchange (issue 50,
item 7): where `fetch_assignment` puts the folder on a one-course hub and on a
several-course one (``Exchange.path_includes_course``), the folder `submit` must run from,
and why the virtual environment goes beside the assignment's folder, never in it.

nbgrader's `submit` measures the whole assignment folder before its ignore patterns apply
(``Exchange.do_copy``: ``get_size`` walks every file, ignored or not) and refuses one above
``CourseDirectory.max_dir_size`` (100 MB) with "Directory size is too big"; its ignore
patterns come from the submitting student's configuration (the folder they run it from, their
home, the system), never from the released folder. So no release keeps a stray ``.venv`` out
of a submission: the page tells students where to make it instead, and this test proves both
facts on the real commands. The exchange is a folder of the test's; students are named with
``--student`` (nbgrader's default authenticator), as off a hub."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.authoring.release import nbgrader_env
from autograder.base.nbgrader_command import nbgrader_command
from autograder.spec import REPO
from tests.support.h2 import SPEC

COURSE = "c1"
TOO_BIG = 101 * 1000 * 1000  # bytes: above nbgrader's default max_dir_size (100000 kB)
PAGE = (REPO / "docs" / "students.md").read_text(encoding="utf-8")


def _exchange(tmp_path: Path) -> Path:
    """An exchange whose course ``COURSE`` has released the assignment (the repository's
    release, as `release_assignment` leaves it in ``outbound/``)."""
    root = tmp_path / "exchange"
    shutil.copytree(SPEC.release_dir, root / COURSE / "outbound" / SPEC.name)
    (root / COURSE / "inbound").mkdir()
    return root


def _nbgrader(cwd: Path, home: Path, exchange: Path, several: bool, *args: str
              ) -> subprocess.CompletedProcess:
    env = {**nbgrader_env(), "HOME": str(home)}
    env.pop("JUPYTER_CONFIG_DIR", None)
    return subprocess.run(
        nbgrader_command(*args, f"--course={COURSE}", f"--Exchange.root={exchange}",
                         f"--Exchange.path_includes_course={several}",
                         f"--Exchange.cache={home / '.nbgrader-cache'}"),
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def _sparse(path: Path, size: int = TOO_BIG) -> None:
    """A file of ``size`` bytes that takes no disk (what a venv with torch weighs, and more)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)


def _submitted(exchange: Path) -> list[str]:
    return sorted(os.listdir(exchange / COURSE / "inbound"))


@pytest.mark.parametrize("several", [False, True], ids=["one-course hub", "several-course hub"])
def test_fetch_and_submit_go_where_the_page_says(tmp_path, several):
    exchange, home = _exchange(tmp_path), tmp_path / "home"
    home.mkdir()
    fetched = _nbgrader(home, home, exchange, several, "fetch_assignment", SPEC.name)
    assert fetched.returncode == 0, fetched.stderr[-2000:]
    parent = home / COURSE if several else home  # "the assignment's parent"
    said = f"`~/<course id>/{SPEC.name}/`" if several else f"`~/{SPEC.name}/`"
    assert said in PAGE
    assert (parent / SPEC.name / SPEC.notebook).is_file()

    # The page's venv: made in the assignment's parent, beside the folder (heavy: 101 MB).
    _sparse(parent / "h2-venv" / "lib" / "torch.so")
    for wrong in (parent / SPEC.name, *([parent] if several else [])):
        refused = _nbgrader(wrong, home, exchange, several, "submit", SPEC.name, "--student=s1")
        assert refused.returncode != 0 and _submitted(exchange) == [], wrong
    done = _nbgrader(home, home, exchange, several, "submit", SPEC.name, "--student=s1")
    assert done.returncode == 0, done.stderr[-2000:]
    (entry,) = _submitted(exchange)
    assert entry.startswith(f"s1+{SPEC.name}+")
    assert "h2-venv" not in os.listdir(exchange / COURSE / "inbound" / entry)


def test_a_venv_inside_the_folder_fails_submit_even_when_the_course_ignores_it(tmp_path):
    """What following the old page did (`cd h2_attention; python3 -m venv .venv`), and why a
    release cannot help: the size check counts ignored files."""
    exchange, home = _exchange(tmp_path), tmp_path / "home"
    home.mkdir()
    assert _nbgrader(home, home, exchange, False, "fetch_assignment", SPEC.name).returncode == 0
    _sparse(home / SPEC.name / ".venv" / "lib" / "torch.so")
    (home / "nbgrader_config.py").write_text(  # read from the folder submit runs in
        'c = get_config()  # noqa: F821\nc.CourseDirectory.ignore = '
        '[".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".venv", ".*"]\n')
    refused = _nbgrader(home, home, exchange, False, "submit", SPEC.name, "--student=s1")
    assert refused.returncode != 0 and "Directory size is too big" in refused.stderr
    assert _submitted(exchange) == []
    shutil.rmtree(home / SPEC.name / ".venv")  # the page's remedy
    done = _nbgrader(home, home, exchange, False, "submit", SPEC.name, "--student=s1")
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_page_makes_the_venv_beside_the_folder_and_submits_from_its_parent():
    blocks = [[line.strip() for line in block.splitlines() if line.strip()]
              for block in re.findall(r"```console\n(.*?)```", PAGE, re.S)]
    install, submit = blocks[0], blocks[1]
    assert install[0] == "python3 -m venv h2-venv"  # in the assignment's parent, not in it
    assert f"pip install -r {SPEC.name}/requirements.txt" in install  # the parent's view
    assert f"cd {SPEC.name}\npython3 -m venv" not in PAGE and "-m venv .venv" not in PAGE
    assert submit == ["cd ~", f"nbgrader submit {SPEC.name} --course=<course id>"]
    assert "JUPYTERHUB_USER env is required" in PAGE  # nbgrader's words off the hub's terminal
    for page in (f"{SPEC.name}/feedback/<submission time>/{SPEC.name}.html",
                 f"<course id>/{SPEC.name}/feedback/<submission time>/{SPEC.name}.html"):
        assert f"`{page}`" in PAGE
