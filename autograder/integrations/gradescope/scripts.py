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

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root in /autograder/source, when it builds the image.
# It installs the grader's dependencies at pyproject.toml's pins ({requirements}) and
# torch's CPU-only build, from PyPI and PyTorch's CPU wheel index; nothing else from outside.
# Written by `python -m autograder gradescope build`: rebuild instead of editing.
set -euo pipefail
cd "$(dirname "$0")"
if ! python3 -c 'import sys; sys.exit(sys.version_info < {python_tuple})'; then
    echo "error: the grader needs Python {python_text}: choose a Gradescope base image" \\
         "that has it (Ubuntu 24.04 has 3.12)" >&2
    exit 1
fi
# The image exists for this autograder alone: install into its system Python.
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# CPU-only torch first (PyPI's Linux wheel would bring CUDA), at pyproject's pin.
python3 -m pip install --index-url {torch_index} {torch}
# Then everything else at pyproject's pins; the torch pin is already met.
python3 -m pip install -r {requirements}
# Fail the image build, not the first student, if the grader cannot start here.
PYTHONPATH="$PWD" python3 -m autograder run-autograder --help >/dev/null
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
mkdir -p "$root/results"
exec python3 -m autograder run-autograder \\
    --config "$root/source/{config}" \\
    --submission "$root/submission" \\
    --metadata "$root/submission_metadata.json" \\
    --results "$root/results/results.json"{options}
"""


def setup_sh(torch: str, python_minimum: tuple[int, int]) -> str:
    """``setup.sh`` for a torch pin (``torch==X``) and a minimum Python version."""
    return SETUP_SH.format(
        requirements=REQUIREMENTS_TXT,
        python_tuple=repr(python_minimum),
        python_text=">= " + ".".join(map(str, python_minimum)),
        torch_index=TORCH_CPU_INDEX,
        torch=shlex.quote(torch),
    )


def run_autograder(options: list[str], config: str = CONFIG_JSON) -> str:
    """``run_autograder`` passing ``options`` on to ``run-autograder``, with the zip's
    ``config`` file (which names the assignment)."""
    return RUN_AUTOGRADER.format(
        config=config,
        options="".join(f" \\\n    {shlex.quote(option)}" for option in options))
