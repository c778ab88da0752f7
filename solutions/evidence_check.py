"""Student-side check of the evidence file against the shipped schema.

A locked notebook cell is a verbatim copy of ``validate_evidence_file`` (only
``json`` and ``jsonschema`` exist there, no autograder), so a student sees the
same schema errors before submitting that the grader's first layer reports.
"""

from __future__ import annotations


def validate_evidence_file(path: str, schema_path: str) -> list[str]:
    """Return the problems of the evidence file at ``path`` as "pointer: message" strings
    (an empty list means the file matches the schema and every section was computed, with
    no NaN or infinity). Prints nothing."""
    import json
    import math
    import sys

    # jsonschema imports rfc3987_syntax, when installed, for a string format this schema never
    # uses, and that import takes seconds; it is left out while jsonschema loads (as the grader
    # does), and nothing else changes.
    leave_out = "rfc3987_syntax" not in sys.modules and "jsonschema" not in sys.modules
    if leave_out:
        sys.modules["rfc3987_syntax"] = None
    try:
        import jsonschema
    finally:
        if leave_out:
            del sys.modules["rfc3987_syntax"]

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
            problems.append(f"/{name}: could not be computed ({section['error']}); it is a bug "
                            "to fix: this section keeps its points only if your functions raise "
                            "this same error when the grader runs them and the function behind "
                            "it lost points for that bug in its own checks (never for a "
                            "NotImplementedError)")

    def recorded(value: object, pointer: str) -> list:
        # The evidence cell writes a NaN or infinity your function returned as this text.
        if isinstance(value, list):
            return [hit for i, item in enumerate(value) for hit in recorded(item, f"{pointer}/{i}")]
        return [(pointer, value)] if value in ("NaN", "Infinity", "-Infinity") else []

    made_by = {"scale": "attention_scores", "raw_scores": "attention_scores",
               "max_abs_diff": "scaled_dot_product_attention` or `torch_sdpa"}
    computed = ("scale", "raw_scores", "weights", "row_sums", "context", "max_abs_diff",
                "weights_before", "weights_after", "context_before", "context_after")
    for name in ("hand_example", "masked_case", "parity", "intervention"):
        section = data.get(name) if isinstance(data, dict) else None
        entries = section if isinstance(section, list) else [section]
        hits = [(field, hit) for i, entry in enumerate(entries) if isinstance(entry, dict)
                for field in computed if field in entry
                for hit in recorded(entry[field], f"/{name}{f'/{i}' if name == 'parity' else ''}/{field}")]
        if hits:
            field, (pointer, text) = hits[0]
            function = made_by.get(field, "value_intervention" if name == "intervention"
                                   else "scaled_dot_product_attention")
            word = {"NaN": "NaN", "Infinity": "infinity", "-Infinity": "minus infinity"}[text]
            problems.append(
                f"{pointer}: your function returned {word} here (`{function}`, in the section "
                f"{name}; {len(hits)} such number(s) there), recorded as \"{text}\": a bug (NaN "
                "is 0/0, e.g. a softmax over the wrong axis or with every key masked; infinity an "
                "overflow). The grader keeps this section's points only if your own functions "
                "compute exactly these numbers and lost points for the bug in their own checks")
    return sorted(problems)
