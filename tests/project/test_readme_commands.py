"""Every command README.md and the docs/ pages tell a reader to type works as written,
after the Quickstart.

The reader's shell is a fresh one: PATH without ``.venv/bin`` and no virtual environment
active, so ``python`` is not the venv's. A page is read in order, as a reader does, in
units: each top-level section (``## ...``) of the README, each docs/ page as a whole (a
page is what a README section was). A command that runs a program of the venv (``python``,
``h2-grader``, ``nbgrader``...) must either be spelled with ``.venv/bin/`` or come after a
``source .venv/bin/activate`` in its unit. Every ``python -m autograder ...`` /
``h2-grader ...`` is parsed by the real command line (a renamed sub-command or option fails),
and its ``--help`` runs, through the page's own activation line, in a shell that has
nothing of this test's environment. ``make`` lines must name a target of the Makefile.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.cli import build_parser
from autograder.spec import REPO
from tests.support.cli import parse_refusal

README = REPO / "README.md"
PAGES = (README, *sorted((REPO / "docs").glob("*.md")))
"""What a reader is told to read: the README and every page of docs/."""
VENV_BIN = REPO / ".venv" / "bin"
ACTIVATE = ".venv/bin/activate"
# Programs that exist only inside the venv (a fresh shell has none, or another Python's).
VENV_PROGRAMS = {"python", "python3", "h2-grader", "nbgrader", "pytest", "ruff", "jupyter", "pip",
                 "dask"}
OTHER_PROGRAMS = {"make", "source", ".", "cd"}
INLINE_CLI = re.compile(r"`((?:\.venv/bin/)?(?:python -m autograder|h2-grader)\b[^`]*)`")


@dataclass(frozen=True)
class Command:
    page: str  # the file, relative to the repository
    section: str
    line: str
    words: tuple[str, ...]
    activated: bool  # a `source .venv/bin/activate` came before it in its section
    inline: bool  # a command quoted in prose, not a line of a code block


def _units(page: Path) -> list[tuple[str, str]]:
    """(title, text) of each part a reader reads in one go: the README's ``##`` sections
    (its preamble has no commands), a docs page whole."""
    text = page.read_text(encoding="utf-8")
    if page != README:
        return [(text.split("\n", 1)[0].lstrip("# "), text)]
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def _words(line: str) -> tuple[str, ...]:
    words = shlex.split(line.replace("<", "").replace(">", ""), comments=True)
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):  # VAR=value command
        words = words[1:]
    return tuple(words)


def readme_commands(pages: tuple[Path, ...] = PAGES) -> list[Command]:
    """Every shell line of the pages' code blocks and every CLI command quoted inline."""
    commands = []
    units = [(page.relative_to(REPO).as_posix(), *unit) for page in pages for unit in _units(page)]
    for name, section, body in units:
        activated = False
        in_block = False
        for raw in body.splitlines():
            if raw.lstrip().startswith("```"):  # a fence, also one indented in a list item
                in_block = not in_block and raw.strip() in ("```bash", "```sh", "```shell")
                continue
            if in_block:
                words = _words(raw)
                if not words:
                    continue
                if words[0] in ("source", ".") and words[1:] == (ACTIVATE,):
                    activated = True
                commands.append(Command(name, section, raw.strip(), words, activated,
                                        inline=False))
            else:
                for quoted in INLINE_CLI.findall(raw):
                    words = _words(quoted)
                    if words[-1] in ("autograder", "h2-grader"):
                        continue  # the program named in prose ("the `h2-grader` commands")
                    commands.append(Command(name, section, quoted, words, activated,
                                            inline=True))
    return commands


COMMANDS = readme_commands()
CLI_COMMANDS = [c for c in COMMANDS if (
    c.words[:3] in (("python", "-m", "autograder"), (".venv/bin/python", "-m", "autograder"))
    or Path(c.words[0]).name == "h2-grader")]


def _id(command: Command) -> str:
    return f"{command.page}: {' '.join(command.words)}"


def cli_arguments(command: Command) -> list[str]:
    words = list(command.words)
    return words[3:] if words[1:3] == ["-m", "autograder"] else words[1:]


def test_the_readme_has_commands_to_check():
    assert any(c.words[0] == "make" for c in COMMANDS)
    assert len([c for c in CLI_COMMANDS if not c.inline]) >= 3
    assert len(PAGES) > 1, "docs/ has no pages"


def test_the_quickstart_is_the_two_commands():
    """One sets up and runs the main job, one sets up and passes the tests."""
    quickstart = [c.line.split("#")[0].strip() for c in COMMANDS
                  if c.page == "README.md" and c.section == "Quickstart"]
    assert quickstart == ["make demo", "make test"]


def test_the_demo_student_ids_are_the_demos():
    """Every sample student a page names is one `make demo` builds (``sample_cohort``)."""
    from autograder.bundles.h2_attention.samples import VARIANTS

    built = {f"s{number + 1:03d}-{variant.name.replace('_', '-')}"
             for number, variant in enumerate(VARIANTS)}
    named = {found for page in PAGES
             for found in re.findall(r"\bs\d{3}-[a-z][a-z-]*[a-z]", page.read_text(encoding="utf-8"))}
    assert named, "the README's first hour names no demo student"
    assert sorted(named - built) == []


@pytest.mark.parametrize("command", COMMANDS, ids=_id)
def test_every_program_exists_where_the_readme_runs_it(command):
    program = command.words[0]
    if program.startswith(".venv/bin/"):
        assert (REPO / program).is_file(), f"{program} is not created by the Quickstart"
    elif program in VENV_PROGRAMS:
        assert command.activated, (
            f"{command.page}, {command.section!r}: `{command.line}` runs `{program}` from "
            f"PATH, but a fresh shell's `{program}` is not the venv's: write "
            f"`.venv/bin/{program}` or put `source {ACTIVATE}` before it there")
    elif program in ("source", "."):
        assert command.words[1:] == (ACTIVATE,) and (REPO / ACTIVATE).is_file()
    elif program == "make":
        targets = set(re.findall(r"^([a-z][\w-]*):", (REPO / "Makefile").read_text(), re.M))
        assert set(command.words[1:]) <= targets, f"no such make target: {command.line}"
    else:
        assert program in OTHER_PROGRAMS, (
            f"{command.page} runs `{program}`, which this test does not know: add it here")


@pytest.mark.parametrize("command", CLI_COMMANDS, ids=_id)
def test_every_cli_command_parses(command):
    """Sub-commands, steps and options as the real parser knows them."""
    refused = parse_refusal(cli_arguments(command))
    assert not refused, f"{command.page}: `{command.line}`: {refused}"


def _help_path(argv: list[str]) -> list[str]:
    """The sub-command path of ``argv`` (e.g. ``cohort collect``), without its arguments."""
    parser, path = build_parser(argv), []
    for word in argv:
        choices = next((a.choices for a in parser._actions
                        if isinstance(a, argparse._SubParsersAction)), None)
        if not choices or word not in choices:
            break
        parser = choices[word]
        path.append(word)
    return path


def fresh_shell_env() -> dict[str, str]:
    """A reader's environment: nothing of this venv on PATH, no virtual environment active."""
    venv = str(REPO / ".venv")
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                                  if p and not p.startswith(venv))
    return env


def _shown(command: Command) -> tuple[str, ...]:
    """The ``--help`` that stands for ``command``: its program and sub-command path."""
    prefix = command.words[:3] if command.words[1:3] == ("-m", "autograder") else command.words[:1]
    return (*prefix, *_help_path(cli_arguments(command)), "--help")


def _one_per_help(commands: list[Command]) -> list[Command]:
    """The first command of each (--help, activated): the same help runs once. (A command
    module that does not import keeps each of its commands, to fail in the test itself.)"""
    seen: dict[tuple[tuple[str, ...], bool], Command] = {}
    for command in commands:
        try:
            shown = _shown(command)
        except Exception:  # noqa: BLE001  (reported by the test, not at collection)
            shown = command.words
        seen.setdefault((shown, command.activated), command)
    return list(seen.values())


@pytest.mark.slow
@pytest.mark.parametrize("command", _one_per_help([c for c in CLI_COMMANDS if not c.inline]),
                         ids=_id)
def test_every_cli_command_runs_as_written(command, tmp_path):
    """Its --help, in a fresh shell that does what the page says first (from the
    repository root), then runs the command from elsewhere (a course root)."""
    shown = list(_shown(command))
    script = f"cd {shlex.quote(str(REPO))}"
    if command.activated:
        script += f" && source {ACTIVATE}"
    script += f" && cd {shlex.quote(str(tmp_path))}"
    if shown[0].startswith(".venv/bin/"):
        shown[0] = str(REPO / shown[0])
    script += " && " + shlex.join(shown)
    done = subprocess.run(["bash", "-c", script], env=fresh_shell_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (
        f"{command.page}: `{command.line}` as written fails:\n{done.stderr[-2000:]}")
    assert "usage:" in done.stdout
