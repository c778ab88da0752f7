"""Student code sees Python's libraries and nothing of the grader (issue 25, item 3).

The worker's minimal root binds Python's installation, and where the grader is installed into
it, its site-packages hold the reference and the checks. ``grader_files`` finds the project's
own files from its install record; the root hides them (overlay whiteouts, or a folder
rebuilt without them) and the worker refuses to run when any is still there. Here: the
editable install this checkout uses, through the real sandbox; the non-editable install, the
Gradescope zip and a Dask worker have their own tests (``tests/end_to_end/test_pip_install.py``,
``tests/integrations/gradescope/test_gradescope_hides_grader.py``, ``tests/batch/cluster/test_dask_hides_grader.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import autograder
import autograder.bundles.h2_attention.checks
import solutions
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from autograder.untrusted import grader_files, isolation
from tests.support.reference_attack import probe_cell
from tests.support.skips import AS_ROOT, needs
from tests.support.wire import cell_errors, start_zygote

PACKAGE_DIRS = [Path(p).resolve() for p in autograder.__path__]


def test_the_grader_is_found_from_its_own_install_record():
    found = grader_files.find()
    assert {"autograder", "solutions"} <= set(found.names)
    assert str(Path(solutions.__file__).resolve().parent) in found.paths
    assert all(str(p) in found.paths for p in PACKAGE_DIRS)
    # This checkout's editable install: its metadata and finder in the venv, found by what
    # they record, not by name; the checkout itself, which holds the instructor notebooks.
    in_venv = [p for p in found.paths if p.startswith(os.path.realpath(sys.prefix))]
    assert any(p.endswith(".dist-info") for p in in_venv), found.paths
    assert any(p.endswith(".pth") for p in in_venv), found.paths
    assert str(PACKAGE_DIRS[0].parent) in found.paths


def test_what_the_root_would_show_is_hidden_around_the_python_it_needs(tmp_path):
    """A checkout under a tree the sandbox shows (/opt), its virtual environment inside:
    everything of the checkout is hidden but the way to the environment; a file outside
    every tree the root shows is left alone; hiding a tree the root shows is refused."""
    checkout = tmp_path / "opt" / "h2"
    venv_site = checkout / ".venv" / "lib" / "site-packages"
    for folder in (checkout / "autograder", checkout / "source", venv_site / "solutions",
                   venv_site / "numpy"):
        folder.mkdir(parents=True)
    (checkout / "README.md").write_text("x")
    files = grader_files.GraderFiles(
        paths=(str(checkout), str(venv_site / "solutions"), "/elsewhere/solutions"),
        names=("autograder", "solutions"))
    bound = [str(tmp_path / "opt"), str(venv_site)]
    hidden = isolation.grader_files_shown(bound, files)
    assert hidden == {str(checkout): {"autograder", "source", "README.md"},
                      str(venv_site): {"solutions"}}
    with pytest.raises(OSError, match="shows whole"):
        isolation.grader_files_shown([str(venv_site / "solutions")], files)


def test_the_check_refuses_a_root_that_shows_the_grader():
    """Outside a sandbox everything is visible: the worker's last check would refuse."""
    with pytest.raises(OSError, match="still visible to student code"):
        isolation.check_grader_hidden([])


@pytest.mark.slow
def test_student_code_reaches_nothing_of_the_grader_in_the_sandbox():
    real_files = [str(Path(solutions.__file__).resolve().with_name("attention.py")),
                  str(Path(autograder.bundles.h2_attention.checks.__file__).resolve().with_name("test_softmax.py")),
                  *(str(p) for p in grader_files.find().paths if os.path.isfile(p))]
    cell = probe_cell() + (
        "def listed(paths):\n"
        "    import os\n"
        "    return {p: sorted(os.listdir(p)) for p in paths if os.path.isdir(p)}\n")
    lease = UidLease.acquire()
    zygote = start_zygote()
    try:
        with SandboxStudent([cell], zygote, uid=lease.uid) as student:
            assert cell_errors(student) == []
            assert "minimal-root" in student.report.isolation
            found = student.call("_reference_sources", real_files)
            listed = student.call("listed", [str(p) for p in PACKAGE_DIRS])
    finally:
        zygote.close()
        lease.release()
    assert found == {}, sorted(found)
    assert all(entries == [] for entries in listed.values()), listed


@pytest.mark.skipif(os.geteuid() != 0,
                    reason=needs("mounts in a mount namespace of its own: root", AS_ROOT))
def test_a_folder_is_rebuilt_without_the_grader_where_overlayfs_is_refused(tmp_path):
    """The fallback (a kernel or container that refuses overlayfs): the folder's other entries
    are there and read-only, the grader's do not exist."""
    folder, target = tmp_path / "site-packages", tmp_path / "view"
    (folder / "numpy").mkdir(parents=True)
    (folder / "numpy" / "__init__.py").write_text("x = 1\n")
    (folder / "solutions").mkdir()
    (folder / "solutions" / "attention.py").write_text("reference\n")
    (folder / "six.py").write_text("six\n")
    (folder / "link").symlink_to("six.py")
    target.mkdir()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            libc = isolation._libc()
            isolation._check(libc.unshare(isolation.CLONE_NEWNS), "unshare")
            isolation._mount(libc, "none", "/", None, isolation.MS_REC | isolation.MS_PRIVATE)
            isolation._rebuild_without(libc, str(folder), str(target), {"solutions"})
            try:
                (target / "numpy" / "new.py").write_text("y")
                writable = True
            except OSError:
                writable = False
            seen = (sorted(os.listdir(target)), (target / "numpy" / "__init__.py").read_text(),
                    (target / "link").read_text(), writable)
            os.write(write, repr(seen).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        seen = pipe.read()
    os.waitpid(pid, 0)
    assert seen == repr((["link", "numpy", "six.py"], "x = 1\n", "six\n", False))
    assert (folder / "solutions" / "attention.py").is_file()  # the machine's own is untouched
