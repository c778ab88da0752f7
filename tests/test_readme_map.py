"""The README's "What is where" map matches the tree: every folder it names exists,
and every subpackage of ``autograder`` and every top-level folder is on it."""

from __future__ import annotations

import re

from autograder.spec import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def mapped_paths() -> set[str]:
    section = README.split("## What is where", 1)[1].split("\n## ", 1)[0]
    return {match.rstrip("/") for match in re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)}


def test_every_mapped_path_exists():
    missing = sorted(path for path in mapped_paths() if not (REPO / path).exists())
    assert missing == []


def test_every_subpackage_and_top_level_folder_is_mapped():
    subpackages = {
        f"autograder/{init.parent.name}" for init in (REPO / "autograder").glob("*/__init__.py")
    }
    top_level = {"solutions", "schemas", "tests", "benchmarks", "source", "release"}
    expected = subpackages | top_level
    mapped = {path.split("/")[0] if path.startswith(("source/", "release/")) else path
              for path in mapped_paths()}
    assert sorted(expected - mapped) == []
