"""Layer 1: validate the evidence against the JSON Schema, in words a student understands.

The schema (the spec's ``schema``, canonical in ``schemas/``) is the single definition
of the format; the notebook ships a copy of it. Here jsonschema reports every
error, and each is rewritten with its JSON pointer. What a schema cannot say
(matrices are rectangular, shapes agree across fields) is checked right after,
in the same layer, because consistency needs well-shaped matrices.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterable, Sequence

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..bundle import H2
from ..sections import SECTIONS
from .report import Finding

SCHEMA_PATH = H2.grader_schema  # schemas/'s, as the package ships it
MAX_SCHEMA_FINDINGS = 50  # a garbage file must not produce thousands of lines

# Field -> named dimensions, per section; the first field that names a dimension fixes it.
SHAPES: dict[str, dict[str, tuple[str, ...]]] = {
    name: section.shapes for name, section in SECTIONS.items() if section.shapes}
DIMENSION_WORDS = {
    "n_q": "one per query", "n_k": "one per key", "d_k": "the query/key width",
    "d_v": "the value width",
}


@functools.lru_cache(maxsize=1)
def load_schema() -> dict:
    """The evidence schema as a dict (read once)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    """A Draft 2020-12 validator for the schema; its $refs are all local (no network)."""
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def inline_refs(schema: dict) -> dict:
    """The schema with every local ``{"$ref": "#/$defs/NAME", ...}`` replaced by its target
    (merged with the keywords beside it; the target's win) and no ``$defs``.

    It accepts exactly the files the schema accepts (the references are local and not
    recursive; a cycle raises ``ValueError``), and jsonschema checks a valid file against it in
    less than half the time (``$ref`` lookups through ``referencing`` were about 60% of it)."""
    definitions = schema.get("$defs", {})

    def inline(node: object, seen: tuple[str, ...]) -> object:
        if isinstance(node, list):
            return [inline(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        rest = {key: inline(value, seen) for key, value in node.items()
                if key != "$ref" and not (key == "$defs" and not seen)}
        reference = node.get("$ref")
        if reference is None:
            return rest
        name = str(reference).removeprefix("#/$defs/")
        if name == reference or name not in definitions or "/" in name or name in seen:
            raise ValueError(f"cannot inline the reference {reference!r}")
        return {**rest, **inline(definitions[name], (*seen, name))}

    return inline(schema, ())


def json_pointer(path: Iterable[str | int]) -> str:
    """RFC 6901 pointer for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def part_of(pointer: str) -> str:
    """Which graded part a location belongs to: the limitation text or the evidence."""
    return "limitation" if pointer == "/limitation" or pointer.startswith("/limitation/") else "evidence"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"true/false ({json.dumps(value)})"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"the text {shown!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} entries"
    if isinstance(value, dict):
        return "an object {...}"
    return type(value).__name__


_TYPE_WORDS = {
    "number": "a number", "integer": "a whole number", "string": "text in double quotes",
    "boolean": "true or false", "array": "a list [...]", "object": "an object {...}",
    "null": "null",
}


def _expected_type(types: str | Sequence[str]) -> str:
    if isinstance(types, str):
        types = [types]
    if sorted(types) == ["number", "string"]:  # a result: a number, or "NaN" in its place
        return _TYPE_WORDS["number"]
    return " or ".join(_TYPE_WORDS.get(t, t) for t in types)


def _stands_for_a_number(error: ValidationError) -> bool:
    """An ``enum`` of the texts that may replace a number ("NaN", "Infinity"...): the
    ``then`` of an ``if`` that asks whether a result was written as text."""
    return list(error.schema_path)[-2:] == ["then", "enum"]


def rule_sentence(error: ValidationError) -> str:
    """The sentence a rule of the schema states, or "". A rule is an entry of ``allOf`` that
    adds one constraint to its field (``minLength``, ``pattern``, ``not``, ``contains``...) and
    says in its ``description`` what is asked, for the student ("The limitation must not be
    empty: ..."). The student-side check (``solutions/evidence_check.py``) reads it the same way.
    """
    path = list(error.schema_path)
    if len(path) >= 3 and path[-3] == "allOf" and isinstance(error.schema, dict):
        return str(error.schema.get("description", "")).rstrip(".")
    return ""


def _message(error: ValidationError) -> str:
    """One student-facing sentence for a jsonschema error (not its Python repr)."""
    keyword, expected, found = error.validator, error.validator_value, error.instance
    about = error.schema.get("description", "") if isinstance(error.schema, dict) else ""
    rule = rule_sentence(error)
    if rule and keyword in ("minLength", "maxLength", "pattern", "not"):
        return f"{rule}; found {_kind(found)}"
    if keyword == "type":
        text = f"expected {_expected_type(expected)} here, found {_kind(found)}"
    elif keyword == "const":
        text = f"expected exactly {json.dumps(expected)}, found {_kind(found)}"
    elif keyword == "enum" and _stands_for_a_number(error):
        text = (f"expected a number here, found {_kind(found)}: the only text allowed in place "
                f"of this number is {' or '.join(json.dumps(e) for e in expected)}, which the "
                "evidence cell writes where your function returned it")
    elif keyword == "enum":
        text = f"expected one of {', '.join(json.dumps(e) for e in expected)}, found {_kind(found)}"
    elif keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "at least", "exclusiveMinimum": "greater than",
                 "maximum": "at most", "exclusiveMaximum": "less than"}[keyword]
        text = f"{found!r} is out of range: it must be {words} {expected!r}"
    elif keyword == "minItems":
        text = f"this list has {len(found)} entries; it needs at least {expected}"
    elif keyword == "maxItems":
        text = f"this list has {len(found)} entries; at most {expected} are allowed"
    elif keyword == "minLength":
        text = "this text is empty" if not found else f"this text is shorter than {expected} characters"
    elif keyword == "maxLength":
        text = f"this text has {len(found)} characters; at most {expected} are allowed"
    elif keyword == "pattern":
        text = f"{_kind(found)} does not have the expected form"
    elif keyword == "not":
        text = f"{_kind(found)} is not allowed here"
    elif keyword in ("contains", "minContains", "maxContains"):
        problem = "has too many such entries" if keyword == "maxContains" else "lacks such an entry"
        text = f"this list must contain {about or 'the required entries'}, but it {problem}"
        about = ""
    else:  # a keyword the schema may gain later: fall back to jsonschema's sentence
        text = error.message
    return f"{text} ({about})" if about else text


def _errors_to_findings(errors: Iterable[ValidationError]) -> list[Finding]:
    findings: list[Finding] = []
    seen_required: set[str] = set()
    for error in errors:
        pointer = json_pointer(error.absolute_path)
        if error.validator == "required":
            if pointer in seen_required:
                continue  # one finding per missing field, from the first error at this object
            seen_required.add(pointer)
            for name in error.validator_value:
                if isinstance(error.instance, dict) and name not in error.instance:
                    where = f"{pointer}/{name}"
                    findings.append(_schema_finding(
                        "missing_field", where,
                        f"the field {name!r} is missing"
                        + (f" ({_field_description(where)})" if _field_description(where) else ""),
                    ))
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = list(error.schema.get("properties", {}))
            for name in error.instance:
                if name in allowed:
                    continue
                close = difflib.get_close_matches(str(name), allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                findings.append(_schema_finding(
                    "unexpected_field", json_pointer([*error.absolute_path, name]),
                    f"unexpected field {name!r}: the evidence format has no such field here{hint} "
                    f"(expected fields: {', '.join(allowed)})",
                ))
        else:
            findings.append(_schema_finding("schema", pointer, _message(error)))
    return findings


def _field_description(pointer: str) -> str:
    """The schema's description of the field at ``pointer`` (best effort)."""
    schema = load_schema()
    node: dict = schema
    for name in pointer.split("/")[1:]:
        node = node.get("properties", {}).get(name, {})
    return node.get("description", "")


def _schema_finding(code: str, pointer: str, message: str) -> Finding:
    return Finding(code=code, part=part_of(pointer), layer="schema", pointer=pointer, message=message)


@functools.lru_cache(maxsize=1)
def quick_validator() -> Draft202012Validator:
    """A validator of ``inline_refs(schema)``: it only says whether a file is valid (most are,
    in about 2.3 ms instead of 5.8). The findings of an invalid file come from ``validator()``,
    whose errors name the schema as it is written."""
    return Draft202012Validator(inline_refs(load_schema()))


def schema_findings(data: dict) -> list[Finding]:
    """Every schema error as a finding (code ``schema``, ``missing_field`` or ``unexpected_field``)."""
    if quick_validator().is_valid(data):
        return []
    errors = sorted(validator().iter_errors(data), key=lambda e: json_pointer(e.absolute_path))
    findings = _errors_to_findings(errors)
    if len(findings) > MAX_SCHEMA_FINDINGS:
        rest = len(findings) - MAX_SCHEMA_FINDINGS
        findings = findings[:MAX_SCHEMA_FINDINGS] + [Finding(
            code="schema", part="evidence", layer="schema", pointer="",
            message=f"... and {rest} more schema problems; fix the ones above and check again",
        )]
    return findings


def _shape(field: str, matrix: list, pointer: str) -> tuple[tuple[int, ...] | None, Finding | None]:
    if not matrix or not isinstance(matrix[0], list):
        return (len(matrix),), None
    width = len(matrix[0])
    for index, row in enumerate(matrix):
        if len(row) != width:
            return None, Finding(
                code="ragged_matrix", part="evidence", layer="schema", pointer=f"{pointer}/{index}",
                message=(
                    f"{field}: row {index} has {len(row)} entries but row 0 has {width}; a "
                    "matrix needs rows of equal length"
                ),
            )
    return (len(matrix), width), None


def structure_findings(data: dict, skip: set[str]) -> list[Finding]:
    """Rectangular matrices, agreeing shapes and an in-range index, per section not in ``skip``."""
    findings: list[Finding] = []
    for section, fields in SHAPES.items():
        if section in skip:
            continue
        dims: dict[str, tuple[int, str]] = {}
        for field, names in fields.items():
            pointer = f"/{section}/{field}"
            shape, problem = _shape(field, data[section][field], pointer)
            if problem is not None:
                findings.append(problem)
                continue
            for size, name in zip(shape, names, strict=True):
                if name not in dims:
                    dims[name] = (size, field)
                    continue
                want, source = dims[name]
                if size != want:
                    findings.append(Finding(
                        code="shape_mismatch", part="evidence", layer="schema", pointer=pointer,
                        message=(
                            f"{field} has shape {' x '.join(map(str, shape))}, but its {name} "
                            f"({DIMENSION_WORDS[name]}) should be {want}, as in {source}"
                        ),
                    ))
                    break
        if section == "intervention" and "n_k" in dims:
            index, n_k = data[section]["index"], dims["n_k"][0]
            if index >= n_k:
                findings.append(Finding(
                    code="index_out_of_range", part="evidence", layer="schema",
                    pointer="/intervention/index",
                    message=f"index {index} names no value row: there are only {n_k} (0 to {n_k - 1})",
                ))
    return findings


def sections_with(findings: Iterable[Finding]) -> set[str]:
    """Top-level fields that some finding points into (those are not checked further)."""
    return {f.pointer.split("/")[1] for f in findings if f.pointer.count("/") >= 1}
