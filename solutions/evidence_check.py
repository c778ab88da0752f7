"""Student-side check of the evidence file against the shipped schema.

A locked notebook cell is a verbatim copy of ``validate_evidence_file`` (only
``json`` and ``jsonschema`` exist there, no autograder), so a student sees the
same schema errors before submitting that the grader's first layer reports.
"""

from __future__ import annotations


def validate_evidence_file(path: str, schema_path: str) -> list[str]:
    """Return the problems of the evidence file at ``path`` as "pointer: message" strings
    (an empty list means the file matches the schema and every section was computed).
    Prints nothing."""
    import json
    import math

    import jsonschema

    def no_constant(literal: str) -> float:
        raise ValueError(f"{literal} is not valid JSON: the evidence must contain finite numbers")

    def finite(literal: str) -> float:
        return float(literal) if math.isfinite(float(literal)) else no_constant(literal)

    def unique_keys(pairs: list) -> dict:
        keys = [key for key, _ in pairs]
        for key in keys:
            if keys.count(key) > 1:
                raise ValueError(f"the key {key!r} appears more than once in one object")
        return dict(pairs)

    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(2**20 + 1)
        if len(raw) > 2**20:
            return [": the file is larger than 1 MiB; re-run the evidence cell"]
        data = json.loads(raw.decode("utf-8-sig"), parse_constant=no_constant,
                          parse_float=finite, object_pairs_hook=unique_keys)
    except (OSError, ValueError, RecursionError) as error:  # JSON and UTF-8 errors are ValueErrors
        return [f": cannot read {path}: {error}"]
    problems = []
    for error in jsonschema.Draft202012Validator(schema).iter_errors(data):
        pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path)
        # A rule of the schema (an entry of "allOf") says in its description what it asks for.
        is_rule = list(error.schema_path)[-3:-2] == ["allOf"] and isinstance(error.schema, dict)
        rule = str(error.schema.get("description", "")).rstrip(".") if is_rule else ""
        problems.append(f"{pointer}: {rule or error.message}")
    if isinstance(data, dict) and data.get("student_id") == "your-student-id":
        problems.append("/student_id: still the placeholder \"your-student-id\"; set STUDENT_ID "
                        "to your student id and re-run the last cells")
    for name, section in (data.items() if isinstance(data, dict) else []):
        if isinstance(section, dict) and isinstance(section.get("error"), str):
            problems.append(f"/{name}: could not be computed ({section['error']}); this section "
                            "scores 0 until the functions it needs work")
    return sorted(problems)
