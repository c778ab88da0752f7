"""The two scripts Gradescope runs, as written into ``autograder.zip``.

``setup.sh`` runs once, as root in ``/autograder/source``, when Gradescope builds the
image; ``run_autograder`` runs for every submission, from ``/autograder`` (Gradescope
copies it there). Both are filled in by ``autograder.integrations.gradescope.build``.
"""

from __future__ import annotations

import shlex

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
REQUIREMENTS_TXT = "requirements.txt"
CONFIG_JSON = "gradescope_assignment.json"
"""In the zip, beside the scripts: the assignment it grades, as plain data (``run-autograder
--config`` reads it)."""

VENV = "venv"
"""Beside ``source/`` (``/autograder/venv``): the grader's own Python environment, made by
setup.sh (a virtual environment brings pip, which Gradescope's images may lack)."""

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root in /autograder/source, when it builds the image.
# 1. A Python {python_text}: the first of {candidates} that is one; else Ubuntu's own
#    {apt_python} from apt-get (Gradescope's default image, Ubuntu 22.04, has Python 3.10;
#    22.04's archive has {apt_python}); else one line naming the base image to choose.
# 2. A virtual environment of that Python in /autograder/{venv}, which brings pip (the image
#    may have none; Ubuntu's Pythons need their -venv package for it, installed with apt-get
#    when missing). run_autograder runs the grader with it.
# 3. In it: {torch_step}the grader's dependencies at pyproject's pins ({requirements}) from
#    PyPI; nothing else from outside. Then a check that the grader starts.
# Written by `python -m autograder gradescope build`: rebuild instead of editing.
set -euo pipefail
cd "$(dirname "$0")"
venv="$(dirname "$PWD")/{venv}"
fail() {{
    echo "error: $*" >&2
    exit 1
}}
new_enough() {{
    command -v "$1" >/dev/null 2>&1 &&
        "$1" -c 'import sys; sys.exit(sys.version_info < {python_tuple})' >/dev/null 2>&1
}}
find_python() {{
    for candidate in {candidates}; do
        if new_enough "$candidate"; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}}
apt_install() {{
    command -v apt-get >/dev/null 2>&1 || return 1
    export DEBIAN_FRONTEND=noninteractive
    # apt's own messages go to the build log (stdout): stderr keeps setup.sh's one error line.
    apt-get update -q 2>&1 && apt-get install -y -q --no-install-recommends "$@" 2>&1
}}
if ! python="$(find_python)"; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "setup.sh: no Python {python_text} in this image; installing {apt_python} with apt-get"
        apt_install {apt_python} {apt_python}-venv || true
    fi
    python="$(find_python)" || fail "the grader needs Python {python_text}; this image has" \\
        "none and apt-get could not install {apt_python}: choose Ubuntu 24.04 (Python 3.12)" \\
        "as the base image on the assignment's Configure Autograder page, then upload the" \\
        "zip again"
fi
echo "setup.sh: using $python ($("$python" -V 2>&1))"
if ! "$python" -m venv --clear "$venv" >/dev/null 2>&1; then
    version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    echo "setup.sh: $python cannot make a virtual environment with pip; installing" \\
         "python$version-venv with apt-get"
    apt_install "python$version-venv" || true
    "$python" -m venv --clear "$venv" >/dev/null 2>&1 || fail "$python has no pip and" \\
        "apt-get could not install python$version-venv (see above), which brings it: choose" \\
        "one of Gradescope's Ubuntu base images (Ubuntu 24.04 has Python 3.12) on the" \\
        "assignment's Configure Autograder page, then upload the zip again"
fi
"$venv/bin/python" -m pip --version >/dev/null 2>&1 || fail "the virtual environment" \\
    "$venv has no pip: choose one of Gradescope's Ubuntu base images (Ubuntu 24.04 has" \\
    "Python 3.12) on the assignment's Configure Autograder page, then upload the zip again"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
{torch_install}"$venv/bin/python" -m pip install -r {requirements}
# Fail the image build, not the first student, if the grader cannot start here.
PYTHONPATH="$PWD" "$venv/bin/python" -m autograder run-autograder --help >/dev/null
echo "setup.sh: the grader is installed in $venv"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: /autograder/submission and
# /autograder/submission_metadata.json in, /autograder/results/results.json out.
# The grader's code is the one in source/ (this zip), whatever else is installed.
# Written by `python -m autograder gradescope build`: rebuild instead of editing.
set -euo pipefail
here="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
# Gradescope's copy is /autograder/run_autograder; the zip's is /autograder/source/run_autograder.
if [ -d "$here/source" ]; then root="$here"; else root="$(dirname "$here")"; fi
export PYTHONPATH="$root/source"
# setup.sh's virtual environment; python3 where there is none (a tree made by hand).
python="$root/{venv}/bin/python"
[ -x "$python" ] || python=python3
mkdir -p "$root/results"
exec "$python" -m autograder run-autograder \\
    --config "$root/source/{config}" \\
    --submission "$root/submission" \\
    --metadata "$root/submission_metadata.json" \\
    --results "$root/results/results.json"{options}
"""


NEWEST_MINOR = 13  # setup.sh looks for python3.<minimum> ... python3.13, then python3


def python_candidates(python_minimum: tuple[int, int]) -> list[str]:
    """The interpreters setup.sh tries, in order: the versioned ones from the minimum up
    (the oldest first: the pins were tested there), then the image's ``python3``."""
    major, minor = python_minimum
    return [f"python{major}.{m}" for m in range(minor, max(minor, NEWEST_MINOR) + 1)] + ["python3"]


TORCH_STEP = ("torch's CPU-only build from PyTorch's CPU wheel index at pyproject.toml's "
              "pin, then\n#    ")
TORCH_INSTALL = """\
# CPU-only torch first (PyPI's Linux wheel would bring CUDA), at pyproject's pin.
"$venv/bin/python" -m pip install --index-url {torch_index} {torch}
# Then everything else at pyproject's pins; the torch pin is already met.
"""


def setup_sh(torch: str | None, python_minimum: tuple[int, int]) -> str:
    """``setup.sh`` for a torch pin (``torch==X``; None: the assignment does not preload
    torch, and nothing installs it) and a minimum Python version."""
    return SETUP_SH.format(
        torch_step=TORCH_STEP if torch else "",
        torch_install=TORCH_INSTALL.format(torch_index=TORCH_CPU_INDEX, torch=shlex.quote(torch))
        if torch else "",
        candidates=" ".join(python_candidates(python_minimum)),
        apt_python="python{}.{}".format(*python_minimum),
        venv=VENV,
        requirements=REQUIREMENTS_TXT,
        python_tuple=repr(python_minimum),
        python_text=">= " + ".".join(map(str, python_minimum)),
    )


def run_autograder(options: list[str], config: str = CONFIG_JSON) -> str:
    """``run_autograder`` passing ``options`` on to ``run-autograder``, with the zip's
    ``config`` file (which names the assignment)."""
    return RUN_AUTOGRADER.format(
        config=config,
        venv=VENV,
        options="".join(f" \\\n    {shlex.quote(option)}" for option in options))
