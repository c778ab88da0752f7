"""The quick validity check (the schema with its ``$ref``s inlined, issue 17) accepts exactly the
evidence files the schema as written accepts: on every mutation the schema tests use, and on a
few hundred random ones (a value replaced by another type or range, a field removed or added)."""

from __future__ import annotations

import json
import random

import pytest

from autograder.bundles.h2_attention.evidence.schema_check import (
    inline_refs,
    load_schema,
    quick_validator,
    validator,
)
from tests.h2_attention.evidence.test_schema import SCHEMA_CASES

REPLACEMENTS = [None, True, False, 0, 1, -1, 2.5, 1e12, -1e12, "", "x", "1.0", "float32", [], {},
                [[1.0]], [[True]], [1.0], [[1.0, 2.0], [3.0]], {"error": "x"}]


def _paths(node: object, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*path, index))
    return found


def _mutated(evidence: dict, rng: random.Random) -> dict:
    copy = json.loads(json.dumps(evidence))
    path = rng.choice(_paths(copy)[1:])
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    action = rng.random()
    if action < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
    elif action < 0.25 and isinstance(parent, dict):
        parent[rng.choice(["extra", "limitaton", "error", "index"])] = rng.choice(REPLACEMENTS)
    else:
        parent[path[-1]] = rng.choice(REPLACEMENTS)
    return copy


def test_nothing_is_left_to_look_up():
    text = json.dumps(inline_refs(load_schema()))
    assert "$ref" not in text and "$defs" not in text


def test_a_cycle_or_a_foreign_reference_is_refused():
    with pytest.raises(ValueError):
        inline_refs({"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"})
    with pytest.raises(ValueError):
        inline_refs({"$ref": "https://example.org/other.json"})


@pytest.mark.parametrize("name", list(SCHEMA_CASES))
def test_same_verdict_on_the_schema_tests_mutations(name, evidence):
    SCHEMA_CASES[name][0](evidence)
    assert quick_validator().is_valid(evidence) == validator().is_valid(evidence)


def test_same_verdict_on_random_mutations(reference_evidence):
    rng = random.Random(17)
    assert quick_validator().is_valid(reference_evidence)
    verdicts = []
    for _ in range(400):
        candidate = _mutated(reference_evidence, rng)
        verdict = validator().is_valid(candidate)
        assert quick_validator().is_valid(candidate) == verdict, candidate
        verdicts.append(verdict)
    assert 20 < sum(verdicts) < 380  # both kinds of file were tried
