"""The zip's setup.sh on the images Gradescope offers, by its logic: it is run (bash, the
built zip's own script) with a fake ``python3``/``python3.X`` and ``apt-get`` on a PATH
that holds nothing else, since no Ubuntu image runs here. What it was not: run on
Gradescope, or against Ubuntu's real archive (docs/platforms.md says so).

Each fake interpreter answers setup.sh's version checks as the version it plays (the real
Python runs the check with ``sys.version_info`` set to it), makes a "virtual environment"
only when its ``-venv`` package is "installed", and logs every call; the fake apt-get
"installs" only the packages the scenario's archive has. Covered: a Python >= 3.11 there
(used, apt untouched); 3.10 only (python3.11 installed with apt-get, or one line naming
the image to choose); a Python without pip (its -venv package installed, or one line).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.integrations.gradescope import build, scripts
from tests.support.h2 import SPEC

IMAGE_LINE = "Ubuntu 24.04"


@pytest.fixture(scope="module")
def setup_sh(tmp_path_factory) -> bytes:
    """The built zip's own setup.sh."""
    with zipfile.ZipFile(build.build(tmp_path_factory.mktemp("zip"), SPEC)) as archive:
        return archive.read("setup.sh")


@dataclass
class Image:
    """A fake image: ``bin/`` (its whole PATH), what apt-get can install, a log of calls."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def log(self) -> Path:
        return self.root / "calls.log"

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def state(self, name: str) -> Path:
        return self.root / "state" / name


def make_image(tmp_path: Path, pythons: dict[str, tuple[int, int, int]],
               with_venv: set[str], archive: set[str] | None) -> Image:
    """``pythons``: name on PATH -> the version it plays; ``with_venv``: those whose -venv
    package is installed; ``archive``: the packages apt-get can install (None: no apt-get).
    A package ``python3.X`` in the archive installs a fake ``python3.X`` (3.X.0)."""
    image = Image(tmp_path / "image")
    for folder in (image.bin, image.root / "staged", image.root / "state"):
        folder.mkdir(parents=True)
    (image.bin / "dirname").symlink_to("/usr/bin/dirname")
    venv_python = image.root / "venv-python"
    venv_python.write_text(f"#!/bin/bash\necho \"venv-python $*\" >> {image.log}\nexit 0\n")
    venv_python.chmod(0o755)

    def fake_python(where: Path, name: str, version: tuple[int, int, int]) -> None:
        short = f"{version[0]}.{version[1]}"
        where.write_text(f"""#!/bin/bash
echo "{name} $*" >> {image.log}
case "$1" in
  -c) exec {shlex.quote(sys.executable)} -c "import sys; sys.version_info = {version!r}
$2" ;;
  -V) echo "Python {'.'.join(map(str, version))}"; exit 0 ;;
  -m) if [ "$2" = venv ]; then
        if [ ! -e {image.state(f"python{short}-venv")} ]; then
          echo "The virtual environment was not created: ensurepip is not available" >&2
          exit 1
        fi
        /bin/mkdir -p "${{@: -1}}/bin" && /bin/cp {venv_python} "${{@: -1}}/bin/python"
        exit 0
      fi ;;
esac
echo "{name}: not faked: $*" >&2
exit 3
""")
        where.chmod(0o755)

    for name, version in pythons.items():
        fake_python(image.bin / name, name, version)
    for name in with_venv:
        image.state(f"{name}-venv").touch()
    if archive is not None:
        for package in archive:
            if package.count(".") == 1 and not package.endswith("-venv"):
                minor = int(package.split(".")[1])
                fake_python(image.root / "staged" / package, package, (3, minor, 0))
        apt = image.bin / "apt-get"
        apt.write_text(f"""#!/bin/bash
echo "apt-get $*" >> {image.log}
[ "$1" = update ] && exit 0
[ "$1" = install ] || exit 1
for package in "$@"; do
  case "$package" in install|-*) continue ;; esac
  case " {' '.join(sorted(archive))} " in
    *" $package "*) ;;
    *) echo "E: Unable to locate package $package" >&2; exit 100 ;;
  esac
done
for package in "$@"; do
  case "$package" in
    *-venv) /bin/touch {image.root / "state"}/"$package" ;;
    python3.*) /bin/cp {image.root / "staged"}/"$package" {image.bin}/"$package" ;;
  esac
done
""")
        apt.chmod(0o755)
    return image


def run_setup(image: Image, setup_sh: bytes) -> subprocess.CompletedProcess:
    """setup.sh as Gradescope runs it: in /autograder/source, as root, on the image's PATH."""
    source = image.root / "autograder" / "source"
    source.mkdir(parents=True)
    (source / "setup.sh").write_bytes(setup_sh)
    return subprocess.run(["/bin/bash", "setup.sh"], cwd=source, capture_output=True,
                          text=True, timeout=60, check=False,
                          env={"PATH": str(image.bin), "LANG": "C.UTF-8"})


def installed_with(image: Image, python: str, done: subprocess.CompletedProcess) -> None:
    """``python`` made the environment, and pip installed the pins into it, in order."""
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == "", done.stderr
    venv = image.root / "autograder" / scripts.VENV
    calls = image.calls()
    assert f"{python} -m venv --clear {venv}" in calls, calls
    torch = next(line for line in calls if "--index-url" in line)
    assert torch.startswith(f"venv-python -m pip install --index-url {scripts.TORCH_CPU_INDEX} "
                            "torch==")
    assert calls[calls.index(torch) + 1] == f"venv-python -m pip install -r {scripts.REQUIREMENTS_TXT}"
    assert calls[-1] == "venv-python -m autograder run-autograder --help"
    assert f"using {python} (Python " in done.stdout


def one_line_naming_the_image(done: subprocess.CompletedProcess, image: Image) -> None:
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert IMAGE_LINE in done.stderr
    assert not [call for call in image.calls() if "pip install" in call]


def test_a_python_3_11_or_later_is_used_and_apt_is_left_alone(tmp_path, setup_sh):
    image = make_image(tmp_path, {"python3": (3, 12, 3)}, {"python3.12"},
                       archive={"python3.11", "python3.11-venv"})
    installed_with(image, "python3", run_setup(image, setup_sh))
    assert not [call for call in image.calls() if call.startswith("apt-get")]


def test_a_versioned_python_comes_before_an_old_python3(tmp_path, setup_sh):
    image = make_image(tmp_path, {"python3": (3, 10, 12), "python3.11": (3, 11, 9)},
                       {"python3.11"}, archive=None)
    installed_with(image, "python3.11", run_setup(image, setup_sh))


def test_ubuntu_22_04_gets_python_3_11_from_its_archive(tmp_path, setup_sh):
    image = make_image(tmp_path, {"python3": (3, 10, 12)}, {"python3.10"},
                       archive={"python3.11", "python3.11-venv", "python3-pip"})
    done = run_setup(image, setup_sh)
    installed_with(image, "python3.11", done)
    assert "apt-get install -y -q --no-install-recommends python3.11 python3.11-venv" in image.calls()
    assert "installing python3.11 with apt-get" in done.stdout


@pytest.mark.parametrize("archive", [set(), None], ids=["archive without it", "no apt-get"])
def test_python_3_10_only_and_nothing_to_install_is_one_line_naming_the_image(
        tmp_path, setup_sh, archive):
    image = make_image(tmp_path, {"python3": (3, 10, 12)}, {"python3.10"}, archive=archive)
    done = run_setup(image, setup_sh)
    one_line_naming_the_image(done, image)
    assert "needs Python >= 3.11" in done.stderr
    assert "choose Ubuntu 24.04 (Python 3.12) as the base image" in done.stderr
    assert ("installing python3.11 with apt-get" in done.stdout) == (archive is not None)


def test_a_python_without_pip_gets_its_venv_package(tmp_path, setup_sh):
    image = make_image(tmp_path, {"python3": (3, 12, 3)}, set(),
                       archive={"python3.12-venv"})
    done = run_setup(image, setup_sh)
    installed_with(image, "python3", done)
    assert "apt-get install -y -q --no-install-recommends python3.12-venv" in image.calls()


def test_a_python_without_pip_and_nothing_to_install_is_one_line(tmp_path, setup_sh):
    image = make_image(tmp_path, {"python3": (3, 12, 3)}, set(), archive=set())
    done = run_setup(image, setup_sh)
    one_line_naming_the_image(done, image)
    assert "has no pip and apt-get could not install python3.12-venv" in done.stderr
