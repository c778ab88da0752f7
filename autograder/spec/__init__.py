"""The assignment spec: the parser of a bundle's ``assignment.toml``, and nothing else.

A spec lists an assignment's graded parts and their points (an evidence file's and a
limitation's parts are optional), the cell each part lives in, the instructor cells the
grader runs or skips, and file names. It is data: the engine never names an assignment;
it is given one (``autograder.assignments``), whose spec this module reads and checks.
A part's points are written in the spec only: the hidden checks carry a relative
``weight`` and get their share of the part's points (``autograder.grading.check_points``).

``parse_spec`` raises ``SpecError`` for a spec that contradicts itself, which every
command reports as one line (``autograder.cli``).
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

PartKind = Literal["function", "evidence", "limitation"]
PART_KINDS: tuple[str, ...] = ("function", "evidence", "limitation")
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_HIDDEN_INPUTS = 200
"""``hidden_inputs``: a phrase in the feedback page's footer, not a paragraph."""
SPEC_FILE = "assignment.toml"
"""A bundle's spec, at the top of its folder."""
TOP_LEVEL_KEYS = ("name", "notebook", "grade_cell_prefix", "total")
LOCATION_KEYS = ("source", "release")
"""Where the bundle's authoring folders are (``source``: the nbgrader source notebook,
``release``: what ``generate-release`` writes), relative to the bundle: they decide no grade,
so the grading key leaves them out (``autograder.assignments.grading_key``)."""
REPO = Path(__file__).resolve().parents[2]
"""The repository checkout this package runs from (its pyproject.toml, cohorts.toml); in an
installed package, site-packages. Bundles name their own source and release folders."""


class SpecError(ValueError):
    """The spec contradicts itself or the hidden checks: nothing may be graded or released
    with it, and the commands say so in one line (``autograder.cli``)."""


@dataclass(frozen=True)
class Part:
    """One graded part: its points, the cell its work lives in and its grade cell."""

    name: str
    kind: PartKind
    points: int
    cell: str  # grade_id of the cell holding the part's work
    grade_cell: str  # grade_id of the nbgrader grade cell carrying the points
    sections: dict[str, int] = field(default_factory=dict)  # evidence: points per check
    review_points: float = 0.0  # limitation: provisional points when a person must read it


@dataclass(frozen=True)
class AssignmentSpec:
    """The assignment's facts; see the module docstring."""

    name: str
    notebook: str
    parts: tuple[Part, ...]
    total: int  # what the parts add up to (declared, so a change that breaks it is caught)
    run_cells: frozenset[str]  # locked instructor cells the grader runs
    skip_cells: frozenset[str]  # locked instructor cells it does not run (besides grade cells)
    schema: str = ""  # the evidence file's JSON Schema (an assignment with an evidence part)
    cohort_file: str = ""  # written by `cohort release` beside the notebook, if the notebook reads one
    reference: str = "reference"  # the reference: a module or package in the bundle, or importable
    preload: tuple[str, ...] = ()  # modules the sandbox imports once, before forking workers
    building_blocks: tuple[str, ...] = ()  # functions other parts call: a hang is charged once
    source: str = "source"  # the source notebook's folder, relative to the bundle
    release: str = "release"  # where generate-release writes the release, relative to the bundle
    hidden_inputs: str = ""  # what the hidden checks' inputs are like, in the student's words

    # ------------------------------------------------------------ parts and points

    def part(self, name: str) -> Part:
        """The part called ``name`` (``KeyError`` if there is none)."""
        for part in self.parts:
            if part.name == name:
                return part
        raise KeyError(name)

    @cached_property
    def part_points(self) -> dict[str, int]:
        """part -> points, in notebook order (every part, evidence included)."""
        return {part.name: part.points for part in self.parts}

    @cached_property
    def function_parts(self) -> tuple[str, ...]:
        """Parts graded by the hidden checks (part = the student's function name)."""
        return tuple(part.name for part in self.parts if part.kind == "function")

    @cached_property
    def function_points(self) -> dict[str, int]:
        """Function part -> points, in notebook order."""
        return {name: self.part_points[name] for name in self.function_parts}

    @cached_property
    def evidence_parts(self) -> tuple[str, ...]:
        """Parts graded by the evidence verifier (``evidence``, ``limitation``)."""
        return tuple(part.name for part in self.parts if part.kind != "function")

    @property
    def total_points(self) -> int:
        """The assignment's maximum score."""
        return sum(self.part_points.values())

    @cached_property
    def evidence_part(self) -> Part | None:
        """The part graded from the submitted evidence file, if the assignment has one."""
        return next((part for part in self.parts if part.kind == "evidence"), None)

    @cached_property
    def limitation_part(self) -> Part | None:
        """The part graded from the student's own sentence, if the assignment has one."""
        return next((part for part in self.parts if part.kind == "limitation"), None)

    @cached_property
    def evidence_sections(self) -> dict[str, int]:
        """Evidence check -> points (they add up to the evidence part; none without one)."""
        return dict(self.evidence_part.sections) if self.evidence_part else {}

    # ------------------------------------------------------------ cells

    @cached_property
    def solution_cells(self) -> frozenset[str]:
        """Cells the student writes (functions and the limitation), by grade_id."""
        return frozenset(p.cell for p in self.parts if p.kind in ("function", "limitation"))

    @cached_property
    def grade_cells(self) -> dict[str, str]:
        """grade_id of each grade cell -> its part."""
        return {part.grade_cell: part.name for part in self.parts}

    def grade_cell_part(self, grade_id: str) -> str | None:
        """The part whose grade cell is ``grade_id``, if any."""
        return self.grade_cells.get(grade_id)


def _part(entry: dict, prefix: str) -> Part:
    try:
        name = str(entry["name"])
        kind = entry["kind"]
        points = entry["points"]
    except KeyError as missing:
        raise SpecError(f"a part has no {missing}") from None
    if kind not in PART_KINDS:
        raise SpecError(f"part {name!r}: kind {kind!r} is not one of {PART_KINDS}")
    if type(points) is not int or points <= 0:
        raise SpecError(f"part {name!r}: points must be a positive whole number, got {points!r}")
    sections = dict(entry.get("sections", {}))
    if any(type(worth) is not int or worth <= 0 for worth in sections.values()):
        raise SpecError(f"part {name!r}: each section's points must be a positive whole number")
    if kind == "evidence" and sum(sections.values()) != points:
        raise SpecError(f"part {name!r}: its sections add up to {sum(sections.values())}, not {points}")
    return Part(
        name=name,
        kind=kind,
        points=points,
        cell=str(entry.get("cell", name)),
        grade_cell=str(entry.get("grade_cell", prefix + name)),
        sections=sections,
        review_points=float(entry.get("review_points", 0.0)),
    )


def parse_spec(text: str) -> AssignmentSpec:
    """An ``AssignmentSpec`` from the TOML text; raises ``SpecError`` if it contradicts itself."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"not valid TOML: {error}") from None
    missing = [key for key in TOP_LEVEL_KEYS if key not in data]
    if missing:
        raise SpecError(f"missing {', '.join(missing)}")
    prefix = data["grade_cell_prefix"]
    parts = tuple(_part(entry, prefix) for entry in data.get("parts", []))
    names = [part.name for part in parts]
    if len(set(names)) != len(names) or not parts:
        raise SpecError(f"parts must be a non-empty list of distinct names, got {names}")
    kinds = [p.kind for p in parts]
    if kinds.count("evidence") > 1 or kinds.count("limitation") > 1:
        raise SpecError("the spec may have at most one evidence part and one limitation part")
    if kinds.count("limitation") and not kinds.count("evidence"):
        raise SpecError("a limitation part is read from the evidence file: add an evidence part")
    if kinds.count("evidence") and not data.get("schema"):
        raise SpecError("an evidence part needs the evidence file's `schema`")
    preload = data.get("preload", [])
    if not isinstance(preload, list) or not all(
            isinstance(name, str) and MODULE_NAME.fullmatch(name) for name in preload):
        raise SpecError("preload must be a list of module names")
    owned = {"autograder", str(data.get("reference", "reference")).split(".")[0]}
    if owned & {name.split(".")[0] for name in preload}:
        raise SpecError("preload may not name the grader or the reference: a preloaded module "
                        "is in every worker that runs student code")
    functions = {p.name for p in parts if p.kind == "function"}
    blocks = tuple(data.get("building_blocks", ()))
    if set(blocks) - functions:
        raise SpecError(f"building_blocks must be function parts, not {sorted(set(blocks) - functions)}")
    hidden_inputs = data.get("hidden_inputs", "")
    if (not isinstance(hidden_inputs, str) or len(hidden_inputs) > MAX_HIDDEN_INPUTS
            or any(not char.isprintable() for char in hidden_inputs)):
        raise SpecError(f"hidden_inputs must be one line of text of at most {MAX_HIDDEN_INPUTS} "
                        "characters (what the hidden checks' inputs are like, for the students' "
                        "feedback pages)")
    cells = data.get("cells", {})
    run, skip = frozenset(cells.get("run", [])), frozenset(cells.get("skip", []))
    grade_cells = {part.grade_cell for part in parts}
    clash = (run & skip) | ((run | skip) & grade_cells)
    if clash:
        raise SpecError(f"cells listed with two roles: {sorted(clash)}")
    locations = _locations(data)
    total = data["total"]
    if sum(part.points for part in parts) != total:
        raise SpecError(f"the parts add up to {sum(part.points for part in parts)} points, "
                        f"not the total of {total}")
    return AssignmentSpec(
        name=data["name"],
        notebook=data["notebook"],
        parts=parts,
        total=total,
        run_cells=run,
        skip_cells=skip,
        schema=str(data.get("schema", "")),
        cohort_file=str(data.get("cohort_file", "")),
        reference=str(data.get("reference", "reference")),
        preload=tuple(str(name) for name in data.get("preload", ())),
        building_blocks=blocks,
        **locations,
        hidden_inputs=hidden_inputs.strip(),
    )


def _locations(data: dict) -> dict[str, str]:
    """The spec's ``source`` and ``release`` folders (the defaults where unset): each a
    non-empty relative path, neither the bundle itself nor the other one."""
    found = {}
    for key in LOCATION_KEYS:
        value = data.get(key, key)
        if not isinstance(value, str) or not value.strip():
            raise SpecError(f"{key} must be a folder's path relative to the bundle, "
                            f"got {value!r}")
        if posixpath.normpath(value.strip()) == ".":
            raise SpecError(f"{key} = {value!r} is the bundle's own folder: name a folder "
                            f"inside or beside it (default {key!r})")
        found[key] = value.strip()
    if posixpath.normpath(found["source"]) == posixpath.normpath(found["release"]):
        raise SpecError(f"source and release are the same folder ({found['source']!r}): "
                        "generating the release would replace the source notebook")
    return found


def load_spec(path: Path) -> AssignmentSpec:
    """The spec in ``path``; a ``SpecError`` names the file, since that is where the fix goes."""
    try:
        return parse_spec(path.read_text(encoding="utf-8"))
    except SpecError as error:
        raise SpecError(f"the assignment spec {path}: {error}") from None
    except OSError as error:
        raise SpecError(f"the assignment spec {path} cannot be read: {error.strerror}") from None

