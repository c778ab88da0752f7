"""Every example a command's ``--help`` shows parses with the real command line (issue 37:
`review --help`'s own example ended in argparse's "unrecognized arguments")."""

from __future__ import annotations

import importlib
import re
import shlex

import pytest

from autograder.cli import COMMANDS
from tests.support.cli import parse_refusal

PROGRAM = ("python", "-m", "autograder")


def help_examples() -> list[tuple[str, str]]:
    """(command, example line) for every ``python -m autograder ...`` line of every
    command's --help text (its module's docstring)."""
    found = []
    for name, (module, _) in COMMANDS.items():
        text = importlib.import_module(module).__doc__ or ""
        found += [(name, line.strip()) for line in text.splitlines()
                  if line.strip().startswith(" ".join(PROGRAM) + " ")]
    return found


EXAMPLES = help_examples()


def test_the_help_texts_have_examples_to_check():
    assert len(EXAMPLES) >= 10
    assert any(line.startswith("python -m autograder review list --assignment")
               for _, line in EXAMPLES)


@pytest.mark.parametrize(("command", "line"), EXAMPLES, ids=[line for _, line in EXAMPLES])
def test_every_help_example_parses(command, line):
    command_only = re.split(r"\s{2,}[#(]", line)[0]  # an example's comment after two spaces
    refused = parse_refusal(shlex.split(command_only)[len(PROGRAM):])
    assert not refused, f"{command} --help: `{line}`: {refused}"
