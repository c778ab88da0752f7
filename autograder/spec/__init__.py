"""The assignment spec: every fact about the assignment, loaded once from package data.

``SPEC`` is read from ``h2_attention.toml`` beside this file: the graded parts
and their points (evidence and limitation included), the cell each part lives
in, the instructor cells the grader runs or skips, and the file names. Every
module and test takes these facts from here; a new part is a change in the TOML
file plus its checks. A part's points are written here only: the hidden checks
carry a relative ``weight`` and get their share of the part's points
(``autograder.grading.check_points``), so changing a part's points is one edit.

``SPEC`` is loaded on first use (PEP 562), not when this module is imported, so a
command can import ``SpecError`` and report a spec that contradicts itself as one
line instead of a traceback from an import. ``SPEC.grading_key`` hashes what decides a grade
(``autograder.spec.grading_key``), so saved grades are reused exactly while it
is unchanged.

The facts the student's own notebook needs at run time (the evidence file's
name, the limitation placeholder) are defined once in ``solutions/evidence.py``,
whose code is copied verbatim into the notebook; the spec exposes them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Literal

PartKind = Literal["function", "evidence", "limitation"]
PART_KINDS: tuple[str, ...] = ("function", "evidence", "limitation")
SPEC_FILE = "h2_attention.toml"
TOP_LEVEL_KEYS = ("name", "notebook", "schema", "cohort_file", "grade_cell_prefix", "total")
REPO = Path(__file__).resolve().parents[2]
"""The repository checkout this package runs from (source/, release/, schemas/); in an
installed package, site-packages, where none of those exist: the grader never reads them."""
PACKAGE_DATA = Path(__file__).resolve().parent / "data"
"""What the grader reads besides code, shipped inside the package so that ``pip install .``
grades without a checkout: the evidence schema and the release notebook (the cell roles).
In a checkout these are symlinks into schemas/ and release/, their one true copies."""


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
    schema: str
    cohort_file: str
    parts: tuple[Part, ...]
    total: int  # what the parts add up to (declared, so a change that breaks it is caught)
    run_cells: frozenset[str]  # locked instructor cells the grader runs
    skip_cells: frozenset[str]  # locked instructor cells it does not run (besides grade cells)

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
    def evidence_sections(self) -> dict[str, int]:
        """Evidence check -> points (they add up to the evidence part)."""
        return dict(self.part("evidence").sections)

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

    # ------------------------------------------------------------ files

    @property
    def evidence_file(self) -> str:
        """The evidence file's name (defined where the notebook's helper defines it)."""
        from solutions.evidence import EVIDENCE_FILENAME

        return EVIDENCE_FILENAME

    @property
    def limitation_placeholder(self) -> str:
        """The text the limitation cell starts with (not a limitation)."""
        from solutions.evidence import LIMITATION_PLACEHOLDER

        return LIMITATION_PLACEHOLDER

    @property
    def source_dir(self) -> Path:
        return REPO / "source" / self.name

    @property
    def source_notebook(self) -> Path:
        return self.source_dir / self.notebook

    @property
    def release_dir(self) -> Path:
        return REPO / "release" / self.name

    @property
    def release_notebook(self) -> Path:
        return self.release_dir / self.notebook

    @property
    def schema_path(self) -> Path:
        """The canonical evidence schema (``schemas/``)."""
        return REPO / "schemas" / self.schema

    @property
    def grader_schema(self) -> Path:
        """The schema the grader validates with: the package's copy of ``schemas/``'s."""
        return PACKAGE_DATA / self.schema

    @property
    def grader_release_notebook(self) -> Path:
        """The release notebook the grader takes cell roles from: the package's copy."""
        return PACKAGE_DATA / self.notebook

    @property
    def shipped_schema(self) -> Path:
        """The copy of the schema next to the source notebook (students validate with it)."""
        return self.source_dir / self.schema

    @property
    def grading_key(self) -> str:
        """Hash of exactly what decides a grade; see ``autograder.spec.grading_key``."""
        from autograder.spec.grading_key import grading_key

        return grading_key()


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
    if [p.kind for p in parts].count("evidence") != 1 or [p.kind for p in parts].count("limitation") != 1:
        raise SpecError("the spec needs exactly one evidence part and one limitation part")
    cells = data.get("cells", {})
    run, skip = frozenset(cells.get("run", [])), frozenset(cells.get("skip", []))
    grade_cells = {part.grade_cell for part in parts}
    clash = (run & skip) | ((run | skip) & grade_cells)
    if clash:
        raise SpecError(f"cells listed with two roles: {sorted(clash)}")
    total = data["total"]
    if sum(part.points for part in parts) != total:
        raise SpecError(f"the parts add up to {sum(part.points for part in parts)} points, "
                        f"not the total of {total}")
    return AssignmentSpec(
        name=data["name"],
        notebook=data["notebook"],
        schema=data["schema"],
        cohort_file=data["cohort_file"],
        parts=parts,
        total=total,
        run_cells=run,
        skip_cells=skip,
    )


def load_spec(path: Path | None = None) -> AssignmentSpec:
    """The spec in ``path`` (the packaged one by default, read once per process through
    ``SPEC``); a ``SpecError`` names the file, since that is where the fix goes."""
    source = resources.files(__package__).joinpath(SPEC_FILE) if path is None else path
    try:
        return parse_spec(source.read_text(encoding="utf-8"))
    except SpecError as error:
        where = f"autograder/spec/{SPEC_FILE}" if path is None else str(path)
        raise SpecError(f"the assignment spec {where}: {error}") from None


SPEC: AssignmentSpec
"""The assignment this package grades (loaded on first use; see the module docstring)."""


def __getattr__(name: str) -> AssignmentSpec:
    if name != "SPEC":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    spec = globals()["SPEC"] = load_spec()
    return spec
