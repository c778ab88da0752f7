"""The "What is where" map (docs/development.md, linked from the README) matches the tree:
every folder it names exists, and every subpackage of ``autograder``, every packaged
assignment bundle and every top-level folder is on it. And the README and the docs/ pages
hold together: every relative link (and its ``#anchor``) leads somewhere, and the README
links to every page."""

from __future__ import annotations

import re
from pathlib import Path

from autograder.spec import REPO

README = REPO / "README.md"
PAGES = (README, *sorted((REPO / "docs").glob("*.md")))
MAP_HEADING = "## What is where"


def map_section() -> str:
    """The map: the one ``## What is where`` section of the README or a docs page."""
    holders = [page for page in PAGES if f"\n{MAP_HEADING}\n" in page.read_text(encoding="utf-8")]
    assert len(holders) == 1, f"the map should be on one page, not {holders}"
    text = holders[0].read_text(encoding="utf-8")
    return text.split(f"\n{MAP_HEADING}\n", 1)[1].split("\n## ", 1)[0]


def mapped_paths() -> set[str]:
    return {match.rstrip("/")
            for match in re.findall(r"^\| `([^`]+)` \|", map_section(), flags=re.M)}


def test_every_mapped_path_exists():
    missing = sorted(path for path in mapped_paths() if not (REPO / path).exists())
    assert missing == []


def test_every_subpackage_and_top_level_folder_is_mapped():
    subpackages = {
        f"autograder/{init.parent.name}" for init in (REPO / "autograder").glob("*/__init__.py")
    }
    bundles = {f"autograder/bundles/{spec.parent.name}"
               for spec in (REPO / "autograder" / "bundles").glob("*/assignment.toml")}
    top_level = {"solutions", "schemas", "tests", "benchmarks", "source", "release", "docs"}
    expected = subpackages | bundles | top_level
    mapped = {path.split("/")[0] if path.startswith(("source/", "release/")) else path
              for path in mapped_paths()}
    assert sorted(expected - mapped) == []


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^\s*```.*?^\s*```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def links(page: Path) -> list[str]:
    """Relative Markdown links of ``page`` (outside code blocks)."""
    text = re.sub(r"^\s*```.*?^\s*```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", text)
            if not re.match(r"[a-z]+:", target)]


def test_every_relative_link_leads_somewhere():
    broken = []
    for page in PAGES:
        for target in links(page):
            path, _, anchor = target.partition("#")
            destination = (page.parent / path).resolve() if path else page
            if not destination.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_the_readme_links_every_docs_page():
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in links(README)}
    assert sorted(page.name for page in PAGES[1:] if page.resolve() not in linked) == []
